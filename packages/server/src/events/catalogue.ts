/**
 * The event catalogue with each event's data schema. The names, which a webhook may subscribe to
 * and the docs text are the SDK's (`@canopy/sdk/event-catalogue`, shared with the CLI, the
 * console and the docs site); this module adds what only the server needs, one TypeBox schema
 * per name (a missing or extra one does not compile), and the check of an event against both.
 *
 * The check runs where events are written (service.ts recordEvent and eventRelationValues,
 * update-reports/report-writes.ts) only under test (NODE_ENV=test, which vitest sets), where it
 * throws: production pays nothing on the device hot path. Rows written by SQL are checked after
 * the fact too: every test server checks its events table when it closes (test/support/server.ts).
 */
import { Type, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { EVENT_CATALOGUE, catalogueEntry, eventName, type EventName } from '@canopy/sdk/event-catalogue';

export { EVENT_CATALOGUE, EVENT_NAMES, EVENT_SUBTYPES, EVENT_TYPES, SUBSCRIBABLE_EVENTS, subtypesOf, type EventName, type EventSubtype, type EventType, type SubscribableEventName } from '@canopy/sdk/event-catalogue';

const Str = Type.String();
const NullableStr = Type.Union([Type.String(), Type.Null()]);
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Num = Type.Number();
const Bool = Type.Boolean();
/** The objects an event's data names; closed (no field the docs do not list), but wire objects. */
const closed = <P extends Record<string, TSchema>>(properties: P) => Type.Object(properties, { additionalProperties: false });
/** An API resource as the admin API shows it: its own schema is the route's; here, its prn. */
const Resource = Type.Object({ prn: Str });

const EventDevice = closed({
  prn: Str,
  identifier: NullableStr,
  cohort: Nullable(closed({ cohort_prn: Str, cohort_name: NullableStr })),
});
const Tunnel = closed({
  tunnel_prn: Str,
  device_prn: Str,
  state: Str,
  expires_at: NullableStr,
  close_reason: NullableStr,
  server_tunnel_port: Nullable(Num),
});
const shellFields = { shell_prn: Str, device_prn: Str, created_by_prn: NullableStr, tunnel_prn: NullableStr, started_at: NullableStr };
const Audit = closed({
  operation: Str,
  resource_type: NullableStr,
  path: Type.Record(Str, Type.Unknown()),
  changes: Type.Unknown(),
  api_key_prn: Str,
  user_prn: NullableStr,
});

/** Each event's `data`. */
export const EVENT_DATA_SCHEMAS: { readonly [N in EventName]: TSchema } = {
  'device.release_changed': closed({
    device: EventDevice,
    from_release: Nullable(closed({ prn: Str, version: NullableStr })),
    to_release: Nullable(closed({ prn: Str, version: NullableStr, known: Type.Boolean() })),
    from_bundle: Nullable(closed({ prn: Str })),
    to_bundle: Nullable(closed({ prn: Str, known: Type.Boolean() })),
  }),
  'device.claimed_release': closed({ device: EventDevice, release: Str, cohort: Str }),
  'device.checked_for_release': closed({
    device: EventDevice,
    status: Str,
    source_type: NullableStr,
    release: Nullable(closed({ prn: Str, version: NullableStr })),
    bundle: Nullable(closed({ prn: Str, name: NullableStr })),
    bundle_override: NullableStr,
    reported: closed({ release_prn: NullableStr, bundle_prn: NullableStr, release_version: NullableStr }),
  }),
  'device.connected': closed({
    device: EventDevice,
    ip_address: Str,
    certificate: closed({ authority_key_identifier: NullableStr, common_name: NullableStr, fingerprint: Str }),
    ca_certificate: Nullable(closed({ common_name: NullableStr, fingerprint: Str })),
    route: Str,
    headers: Type.Record(Str, Str),
  }),
  'device.disconnected': closed({ device: EventDevice, ip_address: Str, connected_at: Str, duration_ms: Num }),
  'device.updated': closed({ device: Resource, changes: Type.Array(Str) }),
  'device.authentication_failed': closed({
    reason: Str,
    detail: Type.Optional(Str),
    device_prn: NullableStr,
    ca_certificate_prn: NullableStr,
    certificate_fingerprint: Str,
    common_name: NullableStr,
    ip: Str,
  }),
  'device.update_reported': closed({ device: Resource, release: NullableStr, bundle: Str, status: Str, progress: Nullable(Num), reason: NullableStr }),
  'device.soak_passed': closed({ device: Resource, release: Str, bundle: Str }),
  'device.soak_failed': closed({ device: Resource, release: Str, bundle: Str, status: Str, reason: NullableStr }),
  'webhook.test_fire': closed({ webhook_prn: Str }),
  'webhook.request_failed': closed({ webhook_prn: Str, event_prn: Str, failure: Str, status: Nullable(Num) }),
  'api_key.created': closed({ api_key: Resource }),
  'claim_token.created': closed({ claim_token: Resource }),
  'claim_token.revoked': closed({ claim_token: Resource }),
  'claim_token.used': closed({ claim_token: Str, device: Str, identifier: Str }),
  'device.reclaim_requested': closed({ device: Str, device_reclaim: Str, claim_token: NullableStr, public_key_fingerprint: Str }),
  'device.reclaim_approved': closed({ device: Str, device_reclaim: Str }),
  'device.reclaim_rejected': closed({ device: Str, device_reclaim: Str }),
  'tunnel.requested': Tunnel,
  'tunnel.opened': Tunnel,
  'tunnel.closed': Tunnel,
  'tunnel.expired': Tunnel,
  'user.locked': closed({ reason: Str, failures: Num, locked_seconds: Num, address: NullableStr }),
  'user.session_revoked': closed({ reason: Str, user_prn: Str, session: Resource }),
  'release.halted': closed({
    release: Str,
    halt_failure_ratio: Num,
    halt_min_reports: Num,
    installed: Num,
    soaking: Num,
    failed: Num,
    rolled_back: Num,
    failure_ratio: Nullable(Num),
  }),
  'release.paused': closed({ release: Str, was_paused: Bool, was_halted: Bool }),
  'release.resumed': closed({ release: Str, was_paused: Bool, was_halted: Bool }),
  'release.cancelled': closed({ release: Str, was_paused: Bool, was_halted: Bool }),
  'web_console_shell.opened': closed(shellFields),
  'web_console_shell.closed': closed({ ...shellFields, ended_at: NullableStr, duration_seconds: Num, close_reason: Str, exit_code: Nullable(Num) }),
  'tuf.root_committed': closed({ version: Num, keyids: Type.Record(Str, Type.Array(Str)) }),
  'tuf.targets_published': closed({ role: Str, version: Num, targets: Num }),
  'tuf.online_keys_created': closed({ keyids: closed({ snapshot: Str, timestamp: Str }) }),
  'audit.commit': Audit,
  'audit.created': Audit,
  'audit.updated': Audit,
  'audit.deleted': Audit,
  'audit.roll_secret': Audit,
  'audit.test_fire': Audit,
  'audit.redeliver': Audit,
  'audit.revert': Audit,
  'audit.pause': Audit,
  'audit.resume': Audit,
  'audit.cancel': Audit,
  'audit.approve': Audit,
  'audit.reject': Audit,
  'audit.update': Audit,
};

const validators = new Map(EVENT_CATALOGUE.map((entry) => [eventName(entry), Compile(EVENT_DATA_SCHEMAS[eventName(entry) as EventName])]));

/** Why `event` is not an event the catalogue declares with data of its schema, or null when it is. */
export function catalogueProblem(event: { type: string; subtype: string; data: unknown }): string | null {
  const name = `${event.type}.${event.subtype}`;
  const validator = validators.get(name);
  if (!catalogueEntry(name) || !validator) return `${name} is not in the event catalogue (packages/sdk/src/event-catalogue.ts)`;
  if (validator.Check(event.data)) return null;
  const errors = validator.Errors(event.data).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
  return `${name}: data does not match its schema (events/catalogue.ts): ${errors.join('; ')}`;
}

/** Under test, events are checked as they are written (not in production: the update check is a hot path). */
export const CHECK_EVENTS = process.env.NODE_ENV === 'test';

/** Throws when `event` is not in the catalogue or its data does not match; only call it behind CHECK_EVENTS. */
export function assertCatalogued(event: { type: string; subtype: string; data: unknown }): void {
  const problem = catalogueProblem(event);
  if (problem) throw new Error(problem);
}
