import type { MaintenanceWindow } from '../updates/core/window-rule';
import { sql } from 'drizzle-orm';
import { boolean, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { bundles } from '../bundles/schema';
import { cohorts } from '../cohorts/schema';
import { id, insertedAt, organizationId, timestamptz, updatedAt } from '../db/columns';
import { devices } from '../devices/schema';

export const PHASE_MODES = ['numeric', 'tags'] as const;

/**
 * Releases of a cohort, linked first -> latest through next_release_id (chain.ts). The chain's
 * shape is kept by the service alone: it edits a cohort's chain only while holding that cohort's
 * row lock, validates the new chain before writing and again after (chain-store.ts). No foreign
 * key or unique index on next_release_id: an edit passes through intermediate states (two
 * latest releases for a moment) that such constraints would reject mid-transaction.
 */
export const releases = pgTable(
  'releases',
  {
    id: id(),
    organizationId: organizationId(),
    cohortId: uuid('cohort_id').notNull().references(() => cohorts.id),
    bundleId: uuid('bundle_id').notNull().references(() => bundles.id),
    name: text('name').notNull(),
    description: text('description'),
    required: boolean('required').notNull().default(false),
    disabled: boolean('disabled').notNull().default(false),
    scheduleDate: timestamptz('schedule_date'),
    version: text('version'),
    versionRequirement: text('version_requirement'),
    phaseMode: text('phase_mode').$type<(typeof PHASE_MODES)[number]>().notNull().default('numeric'),
    phaseTags: text('phase_tags').array(),
    /** [0,1] fraction of the cohort or an integer 2..1e9 device count; 1 = complete (final). */
    phaseValue: doublePrecision('phase_value'),
    /** Phase claims handed out so far; only changed while the row is locked (updates/phase-claims.ts). */
    phaseClaimCount: integer('phase_claim_count').notNull().default(0),
    nextReleaseId: uuid('next_release_id'),
    /** Health gate (rollouts/halt-rule.ts): null = off, else 0 < ratio <= 1 of failed reports that halts the release. */
    haltFailureRatio: doublePrecision('halt_failure_ratio'),
    /** Finished reports (installed, failed, rolled_back) needed before the gate may halt. */
    haltMinReports: integer('halt_min_reports').notNull().default(5),
    /** When the gate halted (disabled) the release; cleared when it is enabled again. */
    haltedAt: timestamptz('halted_at'),
    /** Paused by an operator (rollouts/controls.ts): no new offers until resumed. */
    pausedAt: timestamptz('paused_at'),
    /** Cancelled by an operator: final; devices that have not started it stay where they are. */
    cancelledAt: timestamptz('cancelled_at'),
    /** Success after a soak (rollouts/soak-rule.ts): null = none, `installed` is success. */
    soakSeconds: integer('soak_seconds'),
    /** The penalty box's line (rollouts/penalty-rule.ts); null = the defaults. */
    /** Weekly windows new offers are made in (rollouts/window-rule.ts); null = the cohort's. */
    maintenanceWindows: jsonb('maintenance_windows').$type<MaintenanceWindow[]>(),
    penaltyBox: jsonb('penalty_box').$type<{ failures: number; window_seconds: number | null; rest_seconds: number }>(),
    /** The concurrency cap (updates/core/concurrency-rule.ts): devices updating at once; null = none. */
    maxConcurrent: integer('max_concurrent'),
    /** A cap slot whose device never finishes is freed after this; null = the default (1 h). */
    slotTimeoutSeconds: integer('slot_timeout_seconds'),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('releases_org_inserted').on(t.organizationId, t.insertedAt, t.id),
    index('releases_cohort').on(t.cohortId),
    index('releases_bundle').on(t.bundleId),
    // The update check reads the claim counter of its cohort's (at most one) phased release on
    // every check; this finds it without visiting the other releases of the chain.
    index('releases_cohort_phased').on(t.cohortId).where(sql`phase_value is distinct from 1`),
    // Likewise its capped releases' slot counts: an uncapped fleet pays one probe of an empty index.
    index('releases_cohort_capped').on(t.cohortId).where(sql`max_concurrent is not null`),
  ],
);

/**
 * A stamp per cohort, bumped by every chain edit inside the edit's transaction (chain-store.ts).
 * Update checks keep each cohort's chain in memory and reload it only when the stamp moved, so
 * a 200-release chain is read once per edit rather than once per check, and never stale.
 */
export const releaseChainVersions = pgTable('release_chain_versions', {
  cohortId: uuid('cohort_id')
    .primaryKey()
    .references(() => cohorts.id, { onDelete: 'cascade' }),
  version: integer('version').notNull().default(0),
});

/**
 * Devices per cohort, kept by database triggers on `devices` (migration
 * 0008_cohort_device_count_triggers) so every writer is counted, whatever code path it takes.
 * A fractional phase needs the cohort's size at every claim: counting 100,000 devices each time
 * would dominate the check. Spread over stripes (the writer's backend pid mod 16) so devices
 * registering concurrently into one cohort rarely wait on the same row; the size is the sum.
 */
export const cohortDeviceCounts = pgTable(
  'cohort_device_counts',
  {
    cohortId: uuid('cohort_id')
      .notNull()
      .references(() => cohorts.id, { onDelete: 'cascade' }),
    stripe: integer('stripe').notNull(),
    deviceCount: integer('device_count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.cohortId, t.stripe] })],
);

/** The key of a row about one device and one release, both deleted with it; and its organization. */
export function releaseDeviceColumns() {
  return {
    releaseId: uuid('release_id')
      .notNull()
      .references(() => releases.id, { onDelete: 'cascade' }),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    organizationId: organizationId(),
  };
}

/** One slot of a phased release held by one device: stable, at most one per (release, device). */
export const phaseClaims = pgTable(
  'phase_claims',
  {
    ...releaseDeviceColumns(),
    insertedAt: insertedAt(),
  },
  (t) => [uniqueIndex('phase_claims_release_device').on(t.releaseId, t.deviceId), index('phase_claims_device').on(t.deviceId)],
);


/**
 * A device's place among a capped release's devices updating at once (updates/slot-claims.ts):
 * taken under the release row's lock, freed by the device's finishing report, or ignored once
 * `expires_at` passed (then overwritten or swept by a later take).
 */
export const updateSlots = pgTable(
  'update_slots',
  {
    ...releaseDeviceColumns(),
    takenAt: timestamptz('taken_at').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.releaseId, t.deviceId] }), index('update_slots_release_expiry').on(t.releaseId, t.expiresAt), index('update_slots_device').on(t.deviceId)],
);
