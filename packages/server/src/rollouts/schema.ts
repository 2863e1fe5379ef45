/**
 * Counters that make rollout progress (`GET /releases/{prn}/rollout`) cost a few row reads
 * whatever the cohort's size. Both are kept by database triggers (migration 0005) so every
 * writer is counted, whatever code path it takes (a device deleted cascades its reports, say).
 * Spread over stripes (the writer's backend pid mod 16, like cohort_device_counts) so reports
 * arriving at once for one release rarely wait on the same row; a count is the stripes' sum.
 */
import { sql } from 'drizzle-orm';
import { index, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { timestamptz, updatedAt } from '../db/columns';
import { releaseDeviceColumns, releases } from '../releases/schema';

/** Devices whose latest report for the release has each status (device_update_reports). */
export const releaseReportCounts = pgTable(
  'release_report_counts',
  {
    releaseId: uuid('release_id')
      .notNull()
      .references(() => releases.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    stripe: integer('stripe').notNull(),
    deviceCount: integer('device_count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.releaseId, t.status, t.stripe] })],
);

/**
 * Devices whose reported release (devices.reported_release_prn) is each release, by prn: the
 * device column is a prn, not a foreign key, so this is too (a deleted release's row just stops
 * being read).
 */
export const releaseDeviceCounts = pgTable(
  'release_device_counts',
  {
    releasePrn: text('release_prn').notNull(),
    stripe: integer('stripe').notNull(),
    deviceCount: integer('device_count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.releasePrn, t.stripe] })],
);

/**
 * The penalty box (penalty-rule.ts): each device's recent failures of a release and, once they
 * crossed the release's line, until when it rests from that release. `cohort_id` is the
 * release's (fixed), so an update check asks for a device's rows only when its cohort has any
 * device resting (updates/check-state.ts). Changed only under the row's lock (penalty-box.ts).
 */
export const penaltyBox = pgTable(
  'penalty_box',
  {
    ...releaseDeviceColumns(),
    cohortId: uuid('cohort_id').notNull(),
    /** Failures since the device last left the box (or was released), oldest first; at most the rule's count. */
    failedAt: timestamptz('failed_at').array().notNull().default(sql`'{}'`),
    /** Times the device was boxed for this release since an operator last released it. */
    rests: integer('rests').notNull().default(0),
    restUntil: timestamptz('rest_until'),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.releaseId, t.deviceId] }),
    index('penalty_box_device').on(t.deviceId),
    index('penalty_box_resting_cohort').on(t.cohortId).where(sql`rest_until is not null`),
  ],
);
