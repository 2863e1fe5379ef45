import { sql } from 'drizzle-orm';
import { doublePrecision, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { bundles } from '../bundles/schema';
import { id, insertedAt, organizationId, timestamptz, updatedAt } from '../db/columns';
import { devices } from '../devices/schema';
import { releases } from '../releases/schema';

/**
 * What a device may report. `deferred`: offered, but the device's readiness command said not now
 * (it asks again later). `healthy`: during a release's soak, its health check passed again
 * (rollouts/soak-rule.ts); it never makes a row of its own.
 */
export const UPDATE_REPORT_STATUSES = ['downloading', 'installing', 'rebooting', 'installed', 'failed', 'rolled_back', 'deferred', 'healthy'] as const;
export type UpdateReportStatus = (typeof UPDATE_REPORT_STATUSES)[number];

/** What a device's latest report row holds: a report's status, but `healthy`, or `confirmed` (its soak passed). */
export const STORED_REPORT_STATUSES = ['downloading', 'installing', 'rebooting', 'installed', 'confirmed', 'failed', 'rolled_back', 'deferred'] as const;
export type StoredReportStatus = (typeof STORED_REPORT_STATUSES)[number];

/**
 * The latest update report of each device for each release (or, for a bundle installed outside
 * any release, such as a bundle override, for that bundle). Each report also records a
 * `device.update_reported` event, which keeps the history; this table keeps only what rollout
 * progress needs to count: one row per (device, release), so "devices of release R per status" is
 * one index range scan of `device_update_reports_release_status`, however often devices report.
 */
export const deviceUpdateReports = pgTable(
  'device_update_reports',
  {
    id: id(),
    organizationId: organizationId(),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    releaseId: uuid('release_id').references(() => releases.id, { onDelete: 'cascade' }),
    bundleId: uuid('bundle_id')
      .notNull()
      .references(() => bundles.id, { onDelete: 'cascade' }),
    status: text('status').$type<StoredReportStatus>().notNull(),
    progress: doublePrecision('progress'),
    reason: text('reason'),
    /** When the row became `installed`: the start of the release's soak (rollouts/soak-rule.ts). */
    soakStartedAt: timestamptz('soak_started_at'),
    /** The device's latest `healthy` report during the soak. */
    healthyAt: timestamptz('healthy_at'),
    /** The event of the latest report: its prn is the report's prn. */
    eventId: uuid('event_id').notNull(),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('device_update_reports_device_release').on(t.deviceId, t.releaseId).where(sql`release_id is not null`),
    uniqueIndex('device_update_reports_device_bundle').on(t.deviceId, t.bundleId).where(sql`release_id is null`),
    index('device_update_reports_release_status').on(t.releaseId, t.status),
  ],
);
