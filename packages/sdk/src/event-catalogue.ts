/**
 * The event catalogue: every `type.subtype` the server records, whether a webhook can subscribe
 * to it, and what the documentation says of it. The one hand-written list: the server adds each
 * event's data schema (packages/server/src/events/catalogue.ts, keyed by these names, so a
 * missing or extra schema does not compile) and derives the webhook and `/events` enums from it;
 * the CLI, the console and the docs site read it from here. Plain data, no imports, so a browser
 * and the server share it (as webhook-signature.ts).
 */

export interface CatalogueEntry {
  type: string;
  subtype: string;
  /** A webhook may list it in `enabled_events`. */
  subscribable: boolean;
  /** What happened, one plain-text sentence (console hints, the webhooks page). */
  summary: string;
  /** The fields of its `data`, Markdown (the events page's table). */
  data: string;
}

const AUDIT_DATA = 'an admin write: see [Audit trail](#audit-trail)';
/** `POST /releases/{prn}/pause`, `/resume`, `/cancel` (rollouts/controls.ts on the server). */
const releaseControl = <S extends string>(subtype: S, summary: string) =>
  ({
    type: 'release',
    subtype,
    subscribable: true,
    summary,
    data: '`release`, `was_paused` and `was_halted` (its state before): an operator [controlled](/canopy-core/guides/rolling-out-safely#pause-resume-and-cancel) the release; the actor is who asked',
  }) as const;
const audit = <S extends string>(subtype: S, summary: string) => ({ type: 'audit', subtype, subscribable: false, summary, data: AUDIT_DATA }) as const;
const TUNNEL_DATA = '`tunnel_prn`, `device_prn`, `state`, `expires_at`, `close_reason`, `server_tunnel_port`';
const SHELL_DATA =
  '`shell_prn`, `device_prn`, `created_by_prn`, `tunnel_prn`, `started_at`; `closed` adds `ended_at`, `duration_seconds`, `close_reason` and `exit_code`: a [web console shell](/canopy-core/reference/remote-access/web-console-shells#events) session started or ended (the actor is whoever created the URL)';

export const EVENT_CATALOGUE = [
  {
    type: 'device',
    subtype: 'release_changed',
    subscribable: true,
    summary: "A device's reported release or bundle changed.",
    data: '`device`, `from_release` (`{prn, version}` or null), `to_release` (`{prn, version, known}` or null), `from_bundle` (`{prn}` or null), `to_bundle` (`{prn, known}` or null); `known` says whether the release or bundle the device reports exists in the organization',
  },
  {
    type: 'device',
    subtype: 'claimed_release',
    subscribable: false,
    summary: 'A device claimed a slot of a phased release.',
    data: '`device`, `release` and `cohort` prns: the phased release slot a device claimed',
  },
  {
    type: 'device',
    subtype: 'checked_for_release',
    subscribable: false,
    summary: 'A device checked for an update.',
    data: '`device`, `status`, `source_type`, `release` (`{prn, version}` or null), `bundle` (`{prn, name}` or null), `bundle_override` (a prn or null), `reported`',
  },
  {
    type: 'device',
    subtype: 'connected',
    subscribable: false,
    summary: 'A device opened a connection to the device API and was admitted.',
    data: '`device`, `ip_address`, `certificate` (`{authority_key_identifier, common_name, fingerprint}`), `ca_certificate` (`{common_name, fingerprint}` of the registered CA that vouched for the chain), `route` (the path of the connection\'s first request, without its query), `headers` (the `canopy-*` and `x-canopy-*` headers of that request): a device opened a connection to the device API and was admitted',
  },
  {
    type: 'device',
    subtype: 'disconnected',
    subscribable: false,
    summary: 'An admitted connection to the device API closed.',
    data: '`device`, `ip_address`, `connected_at` (when the connection\'s first request arrived) and `duration_ms`: an admitted connection to the device API closed. Refused connections record neither this nor `connected`',
  },
  {
    type: 'device',
    subtype: 'updated',
    subscribable: false,
    summary: 'A device record changed through the admin API.',
    data: '`device` (as the admin API shows it) and `changes` (the names of the fields that changed): the device record changed through the admin API',
  },
  {
    type: 'device',
    subtype: 'authentication_failed',
    subscribable: false,
    summary: 'A device of the organization was refused by the device API.',
    data: '`reason` such as `device_is_archived`, `multi_cert_jitr_disabled`, `jitp_disabled`, `jitp_failed`, `unknown_ca` or `expired`, with the certificate\'s fingerprint and common name',
  },
  {
    type: 'device',
    subtype: 'update_reported',
    subscribable: false,
    summary: 'A device reported the progress or outcome of an install.',
    data: '`device` (as the admin API shows it), `release` (a prn or null), `bundle` (a prn), `status`, `progress` and `reason`: a device\'s update report (`POST /update/reports`; the report\'s `prn` is this event\'s)',
  },
  {
    type: 'device',
    subtype: 'soak_passed',
    subscribable: true,
    summary: "A device's soak passed: it reported healthy for the release's soak_seconds after installing it.",
    data: '`device` (as the admin API shows it), `release` (a prn), `bundle` (a prn): the device now counts as succeeded for the release ([success after a soak](/canopy-core/guides/rolling-out-safely#success-after-a-soak))',
  },
  {
    type: 'device',
    subtype: 'soak_failed',
    subscribable: true,
    summary: 'A device failed or rolled back a release within its soak.',
    data: '`device` (as the admin API shows it), `release` (a prn), `bundle` (a prn), `status` (`failed` or `rolled_back`) and `reason`: counts against the release in its health gate ([success after a soak](/canopy-core/guides/rolling-out-safely#success-after-a-soak))',
  },
  { type: 'webhook', subtype: 'test_fire', subscribable: true, summary: 'A webhook was test-fired; always delivered to the webhook it tests.', data: '`webhook_prn`' },
  {
    type: 'webhook',
    subtype: 'request_failed',
    subscribable: false,
    summary: 'A delivery failed for good after its retries (never itself delivered).',
    data: '`webhook_prn`, `event_prn`, `failure` and `status`',
  },
  { type: 'api_key', subtype: 'created', subscribable: false, summary: 'An API key was created.', data: '`api_key`: the new key (never its secret)' },
  { type: 'claim_token', subtype: 'created', subscribable: false, summary: 'A claim token was issued.', data: '`claim_token`: the token as the admin API shows it (never its secret)' },
  { type: 'claim_token', subtype: 'revoked', subscribable: false, summary: 'A claim token was revoked.', data: '`claim_token`: the token as the admin API shows it' },
  {
    type: 'claim_token',
    subtype: 'used',
    subscribable: false,
    summary: 'A device enrolled itself with a claim token.',
    data: '`claim_token` (a prn), `device` (a prn) and `identifier`: a device with a fresh key claimed its identity; the actor is the token',
  },
  {
    type: 'device',
    subtype: 'reclaim_requested',
    subscribable: false,
    summary: 'A device claimed an existing identifier with a new key; an admin must approve it.',
    data: '`device` (a prn), `device_reclaim` (a prn), `claim_token` (a prn) and `public_key_fingerprint`',
  },
  { type: 'device', subtype: 'reclaim_approved', subscribable: false, summary: "An admin approved a device's new key.", data: '`device` (a prn) and `device_reclaim` (a prn)' },
  { type: 'device', subtype: 'reclaim_rejected', subscribable: false, summary: "An admin rejected a device's new key.", data: '`device` (a prn) and `device_reclaim` (a prn)' },
  { type: 'tunnel', subtype: 'requested', subscribable: false, summary: 'A tunnel was requested.', data: TUNNEL_DATA },
  { type: 'tunnel', subtype: 'opened', subscribable: false, summary: "A tunnel's device end was configured.", data: TUNNEL_DATA },
  { type: 'tunnel', subtype: 'closed', subscribable: false, summary: 'A tunnel was closed.', data: TUNNEL_DATA },
  { type: 'tunnel', subtype: 'expired', subscribable: false, summary: 'A tunnel expired.', data: TUNNEL_DATA },
  {
    type: 'user',
    subtype: 'locked',
    subscribable: false,
    summary: 'An account was locked after repeated failed log-ins.',
    data: '`reason` (`failed_logins`), `failures`, `locked_seconds` and `address` (the client address of the last failure): `POST /users/auth` locked the account',
  },
  {
    type: 'user',
    subtype: 'session_revoked',
    subscribable: false,
    summary: 'A console or CLI session was ended.',
    data: '`reason` (`signed_out` or `revoked`), `user_prn` and `session` (as `GET /users/me/sessions` shows it, never its token): a [session](/canopy-core/reference/account-management#sessions) was ended; the actor is whoever ended it',
  },
  {
    type: 'release',
    subtype: 'halted',
    subscribable: true,
    summary: 'The health gate halted a release.',
    data: '`release`, `halt_failure_ratio`, `halt_min_reports`, `installed` (devices counted as succeeded: confirmed ones on a release with a soak), `soaking`, `failed`, `rolled_back`, `failure_ratio`: the [health gate](/canopy-core/reference/bundle-management/releases#the-health-gate) halted the release (the actor is the device whose report crossed the line)',
  },
  releaseControl('paused', 'An operator paused a release.'),
  releaseControl('resumed', 'An operator resumed a paused or halted release.'),
  releaseControl('cancelled', 'An operator cancelled a release.'),
  { type: 'web_console_shell', subtype: 'opened', subscribable: true, summary: 'A web console shell session started.', data: SHELL_DATA },
  { type: 'web_console_shell', subtype: 'closed', subscribable: true, summary: 'A web console shell session ended.', data: SHELL_DATA },
  {
    type: 'tuf',
    subtype: 'root_committed',
    subscribable: true,
    summary: "A new TUF root became the organization's trusted root.",
    data: '`version` and `keyids` (by role): a root signed by the previous root\'s threshold and its own was [committed](/canopy-core/guides/trust/tuf#root-rotation)',
  },
  {
    type: 'tuf',
    subtype: 'targets_published',
    subscribable: true,
    summary: 'Signed TUF targets metadata was published, with a new snapshot and timestamp.',
    data: '`role` (`targets` or a delegated role), `version` and `targets` (how many files it lists): uploaded [targets metadata](/canopy-core/guides/trust/tuf) passed its checks',
  },
  {
    type: 'tuf',
    subtype: 'online_keys_created',
    subscribable: false,
    summary: 'The server generated new online keys for the TUF snapshot and timestamp roles.',
    data: '`keyids` (`snapshot`, `timestamp`): the public halves go into the next root; the server signs with them once a root names them',
  },
  audit('commit', 'An admin write committed a proposed TUF root.'),
  audit('created', 'An admin write created a resource (a POST to a collection).'),
  audit('updated', 'An admin write changed a resource (PUT, PATCH).'),
  audit('deleted', 'An admin write deleted a resource (DELETE).'),
  audit('roll_secret', "An admin write rolled a webhook's secret."),
  audit('test_fire', 'An admin write test-fired a webhook.'),
  audit('redeliver', "An admin write queued a webhook's deliveries again."),
  audit('revert', 'An admin write reverted a release.'),
  audit('pause', 'An admin write paused a release.'),
  audit('resume', 'An admin write resumed a release.'),
  audit('cancel', 'An admin write cancelled a release.'),
  audit('approve', 'An admin write approved a device reclaim.'),
  audit('reject', 'An admin write rejected a device reclaim.'),
  audit('update', 'An admin write ran an update check for a device (POST /devices/{prn}/update).'),
] as const satisfies readonly CatalogueEntry[];

type Entry = (typeof EVENT_CATALOGUE)[number];
type NameOf<E> = E extends Entry ? `${E['type']}.${E['subtype']}` : never;
/** `device.release_changed`, ...: every event the server records. */
export type EventName = NameOf<Entry>;
export type EventType = Entry['type'];
/** The subtypes an event of `T` can have. */
export type EventSubtype<T extends EventType = EventType> = Extract<Entry, { type: T }>['subtype'];
/** The events a webhook may subscribe to. */
export type SubscribableEventName = NameOf<Extract<Entry, { subscribable: true }>>;

export const eventName = (entry: { type: string; subtype: string }): string => `${entry.type}.${entry.subtype}`;

const unique = <T>(values: T[]): T[] => [...new Set(values)];

/** Every event name, in catalogue order. */
export const EVENT_NAMES = EVENT_CATALOGUE.map((entry) => eventName(entry)) as EventName[];
/** Every event type, in catalogue order. */
export const EVENT_TYPES = unique(EVENT_CATALOGUE.map((entry) => entry.type)) as EventType[];
/** Every subtype of any type (`GET /events?subtype=`), in catalogue order. */
export const EVENT_SUBTYPES = unique(EVENT_CATALOGUE.map((entry) => entry.subtype)) as EventSubtype[];
/** What a webhook may subscribe to (`enabled_events`). */
export const SUBSCRIBABLE_EVENTS = EVENT_CATALOGUE.filter((entry) => entry.subscribable).map((entry) => eventName(entry)) as SubscribableEventName[];

/** The subtypes of one type, in catalogue order. */
export function subtypesOf<T extends EventType>(type: T): EventSubtype<T>[] {
  return EVENT_CATALOGUE.filter((entry) => entry.type === type).map((entry) => entry.subtype) as EventSubtype<T>[];
}

/** The entry of `name`, or undefined for a name the catalogue does not declare. */
export function catalogueEntry(name: string): CatalogueEntry | undefined {
  return EVENT_CATALOGUE.find((entry) => eventName(entry) === name);
}
