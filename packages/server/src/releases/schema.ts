import { boolean, doublePrecision, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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
    /** Phase claims handed out so far; only changed while the row is locked (phase-claims.ts). */
    phaseClaimCount: integer('phase_claim_count').notNull().default(0),
    nextReleaseId: uuid('next_release_id'),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('releases_org_inserted').on(t.organizationId, t.insertedAt, t.id),
    index('releases_cohort').on(t.cohortId),
    index('releases_bundle').on(t.bundleId),
  ],
);

/** One slot of a phased release held by one device: stable, at most one per (release, device). */
export const phaseClaims = pgTable(
  'phase_claims',
  {
    releaseId: uuid('release_id')
      .notNull()
      .references(() => releases.id, { onDelete: 'cascade' }),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    organizationId: organizationId(),
    insertedAt: insertedAt(),
  },
  (t) => [uniqueIndex('phase_claims_release_device').on(t.releaseId, t.deviceId), index('phase_claims_device').on(t.deviceId)],
);

