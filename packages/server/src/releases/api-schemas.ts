/**
 * The wire schemas of releases: the release as answered, the bodies of `POST /releases` and
 * `PATCH /releases/{prn}`, shared with the rollouts context (its dry run takes the create body,
 * its revert answers a release).
 */
import { Type, type Static } from 'typebox';
import { invalidField } from '../http/errors';
import { Description, Name, Nullable, Prn, ResourceFields, Timestamp } from '../http/schemas';
import type { ReleaseFields } from './service';
import { MAX_SOAK_SECONDS } from '../rollouts/soak-rule';
import { MAX_CONCURRENT_MAX, SLOT_TIMEOUT_MAX, SLOT_TIMEOUT_MIN } from '../updates/core/concurrency-rule';

export const PhaseMode = Type.Union([Type.Literal('numeric'), Type.Literal('tags')], { description: 'numeric (default): phase_value decides; tags: devices with one of phase_tags.' });
/** Nullable() only handles single-typed schemas; this is an enum, so null is one more member. */
export const PhaseType = Type.Union([Type.Literal('static'), Type.Literal('percent'), Type.Null()], { description: 'Derived from phase_value: percent for 0..1, static for a device count.' });
export const PhaseValue = Type.Number({
  minimum: 0,
  maximum: 1_000_000_000,
  description: 'A fraction of the cohort in [0,1] or an integer device count 2..1,000,000,000. 1 completes the phase and is final.',
  examples: [0.1],
});
export const HaltFailureRatio = Type.Number({
  exclusiveMinimum: 0,
  maximum: 1,
  description: 'Health gate: halt (disable) the release once (failed + rolled_back) / finished reports reaches this; null turns the gate off.',
  examples: [0.2],
});
// No schema default: the create's default (5) is the service's, so a PATCH without it changes nothing.
export const HaltMinReports = Type.Integer({ minimum: 1, description: 'Finished reports (installed, failed, rolled_back) needed before the gate may halt; 5 when not given at create.' });
export const SoakSeconds = Type.Integer({
  minimum: 1,
  maximum: MAX_SOAK_SECONDS,
  description:
    'Success after a soak: a device counts as succeeded only once it has reported healthy this many seconds after `installed`; a failure or rollback before then counts against the release. Null: `installed` is success.',
  examples: [3600],
});
export const PenaltyBox = Type.Object(
  {
    failures: Type.Integer({ minimum: 1, maximum: 100, description: 'Failures (failed or rolled_back reports) of this release by one device that box it; 3 by default.' }),
    window_seconds: Nullable(Type.Integer({ minimum: 1, description: 'The failures must fall within this many seconds; null: no window.' })),
    rest_seconds: Type.Integer({ minimum: 1, description: 'How long a boxed device is not offered the release; then it is offered once more.' }),
  },
  { description: 'Penalty box: a device failing this release this often rests from it. Null: the defaults, 3 failures, no window, 86400 s.', examples: [{ failures: 5, window_seconds: 180, rest_seconds: 3600 }] },
);
/**
 * Loose on purpose: window-rule.ts checks every part and answers 422 naming it
 * (`maintenance_windows[0].time_zone`), which a schema pattern could not do for time zones.
 */
export const MaintenanceWindows = (description: string) =>
  Type.Array(
    Type.Object(
      {
        days: Type.Array(Type.String(), { description: 'Days the window opens on: mon, tue, wed, thu, fri, sat, sun.' }),
        start: Type.String({ description: 'Local opening time, HH:MM.' }),
        end: Type.String({ description: 'Local closing time, HH:MM, exclusive; at or before start: the window crosses midnight.' }),
        time_zone: Type.String({ description: 'IANA time zone of start and end, e.g. Europe/Berlin.' }),
      },
      { additionalProperties: false },
    ),
    { description, examples: [[{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '04:00', time_zone: 'Europe/Berlin' }]] },
  );
export const MaxConcurrent = Type.Integer({
  minimum: 1,
  maximum: MAX_CONCURRENT_MAX,
  description: 'Concurrency cap: at most this many devices updating the release at once (offered, no installed/failed/rolled_back/deferred report yet); a device beyond it is answered `retry_later` with `retry_after` seconds. Null: no cap.',
  examples: [500],
});
export const SlotTimeoutSeconds = Type.Integer({
  minimum: SLOT_TIMEOUT_MIN,
  maximum: SLOT_TIMEOUT_MAX,
  description: 'A device holding a cap slot that never reports finishing frees it after this many seconds. Null: 3600.',
  examples: [3600],
});
export const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 100, description: 'A device needs one of these (tags mode).' });
export const Requirement = Type.String({ minLength: 1, maxLength: 256, description: "An Elixir version requirement, e.g. '~> 1.2' or '>= 1.0.0 and < 2.0.0'." });

export const Release = Type.Object({
  ...ResourceFields,
  bundle_prn: Prn('The bundle this release installs.'),
  cohort_prn: Prn('The cohort whose chain the release belongs to.'),
  name: Name('Release name.'),
  description: Nullable(Description()),
  required: Type.Boolean({ description: 'Devices must pass through a required release.' }),
  disabled: Type.Boolean({ description: 'A disabled release is never resolved.' }),
  schedule_date: Nullable(Timestamp('Not resolvable before this moment.')),
  schedule_complete: Type.Boolean({ description: 'Derived: true once schedule_date has passed (or when none is set).' }),
  version: Nullable(Type.String({ description: 'The Elixir-style version this release installs.' })),
  version_requirement: Nullable(Requirement),
  phase_mode: PhaseMode,
  phase_tags: Nullable(Tags),
  phase_type: PhaseType,
  phase_value: Nullable(PhaseValue),
  phase_claim_count: Type.Integer({ description: 'Devices that hold a slot of this phased release.' }),
  halt_failure_ratio: Nullable(HaltFailureRatio),
  halt_min_reports: HaltMinReports,
  halted_at: Nullable(Timestamp('When the health gate halted (disabled) the release; null when not halted or resumed.')),
  paused_at: Nullable(Timestamp('When an operator paused the release (POST /releases/{prn}/pause): no new offers; null when running.')),
  cancelled_at: Nullable(Timestamp('When an operator cancelled the release (POST /releases/{prn}/cancel): final, never offered again.')),
  penalty_box: Nullable(PenaltyBox),
  max_concurrent: Nullable(MaxConcurrent),
  slot_timeout_seconds: Nullable(SlotTimeoutSeconds),
  maintenance_windows: Nullable(MaintenanceWindows("Weekly windows new offers of this release are made in; null: the cohort's windows (none: always).")),
  soak_seconds: Nullable(SoakSeconds),
  next_release_prn: Nullable(Prn('The next (newer) release; null for the latest.')),
  previous_release_prn: Nullable(Prn('The previous (older) release; null for the first.')),
});

const writable = {
  bundle_prn: Prn('The bundle this release installs.'),
  cohort_prn: Prn('The cohort; fixed once created.'),
  name: Name('Release name.'),
  description: Type.Optional(Nullable(Description())),
  required: Type.Boolean(),
  disabled: Type.Optional(Type.Boolean({ default: false })),
  schedule_date: Nullable(Type.String({ description: 'RFC 3339 date-time, or null.' })),
  schedule_complete: Type.Optional(Type.Boolean({ description: 'Ignored: derived from schedule_date.' })),
  version: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
  version_requirement: Type.Optional(Nullable(Requirement)),
  'version-requirement': Type.Optional(Nullable(Requirement)),
  phase_mode: Type.Optional(PhaseMode),
  phase_tags: Type.Optional(Nullable(Tags)),
  phase_type: Type.Optional(PhaseType),
  phase_value: Type.Optional(Nullable(PhaseValue)),
  halt_failure_ratio: Type.Optional(Nullable(HaltFailureRatio)),
  halt_min_reports: Type.Optional(HaltMinReports),
  next_release_prn: Type.Optional(Nullable(Prn('Insert (or move) right before this release.'))),
  previous_release_prn: Type.Optional(Nullable(Prn('Insert (or move) right after this release.'))),
  penalty_box: Type.Optional(Nullable(PenaltyBox)),
  max_concurrent: Type.Optional(Nullable(MaxConcurrent)),
  slot_timeout_seconds: Type.Optional(Nullable(SlotTimeoutSeconds)),
  maintenance_windows: Type.Optional(Nullable(MaintenanceWindows("Weekly windows new offers of this release are made in; null: the cohort's windows (none: always)."))),
  soak_seconds: Type.Optional(Nullable(SoakSeconds)),
  paused_at: Type.Optional(Nullable(Type.String({ description: 'Ignored: set by POST /releases/{prn}/pause and /resume.' }))),
  cancelled_at: Type.Optional(Nullable(Type.String({ description: 'Ignored: set by POST /releases/{prn}/cancel.' }))),
};

export const CreateBody = Type.Object(writable);
// Without the create's default: a PATCH that does not send `disabled` must leave it alone (with
// the default, every PATCH re-enabled a disabled or halted release).
export const UpdateBody = Type.Partial(Type.Object({ ...writable, disabled: Type.Optional(Type.Boolean()) }));

/** Both spellings are accepted; sending both with different values is a mistake. */
export function fields(body: Static<typeof UpdateBody>): ReleaseFields {
  const { 'version-requirement': dashed, schedule_complete: _derived, paused_at: _paused, cancelled_at: _cancelled, ...rest } = body;
  if (dashed !== undefined && rest.version_requirement !== undefined && dashed !== rest.version_requirement) {
    throw invalidField('version_requirement', 'conflicts_with_version-requirement');
  }
  return { ...rest, version_requirement: rest.version_requirement ?? dashed };
}

