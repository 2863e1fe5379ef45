/**
 * Counters that make rollout progress (`GET /releases/{prn}/rollout`) cost a few row reads
 * whatever the cohort's size. Both are kept by database triggers (migration 0005) so every
 * writer is counted, whatever code path it takes (a device deleted cascades its reports, say).
 * Spread over stripes (the writer's backend pid mod 16, like cohort_device_counts) so reports
 * arriving at once for one release rarely wait on the same row; a count is the stripes' sum.
 */
import { integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { releases } from '../releases/schema';

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
