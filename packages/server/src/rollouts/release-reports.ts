/**
 * The devices behind a release's rollout counts (`GET /releases/{prn}/reports`): each device's
 * latest report for the release (device_update_reports), newest change first, optionally of
 * some statuses only, so an operator can go from "3 failed" to the three devices and their reasons.
 */
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { resourceIdFromPrn, resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import type { Executor } from '../db/connection';
import { devices } from '../devices/schema';
import type { Actor } from '../http/actor';
import { notFound } from '../http/errors';
import { pageRequest, toPage, type ListQuery } from '../http/pagination';
import { releases } from '../releases/schema';
import { deviceUpdateReports, type StoredReportStatus } from '../update-reports/schema';

export interface ReleaseReportWire {
  prn: string;
  device_prn: string;
  device_identifier: string;
  bundle_prn: string;
  status: StoredReportStatus;
  progress: number | null;
  reason: string | null;
  updated_at: string;
  soak_ends_at: string | null;
  healthy_at: string | null;
}

/** When a soaking device's soak ends; null when it is not soaking. */
function soakEndsAt(status: StoredReportStatus, startedAt: string | null, soakSeconds: number | null): string | null {
  if (status !== 'installed' || startedAt === null || !soakSeconds) return null;
  return new Date(Date.parse(toRfc3339(startedAt)!) + soakSeconds * 1000).toISOString();
}

export async function listReleaseReports(db: Executor, actor: Actor, prn: string, query: ListQuery & { status?: StoredReportStatus[] }) {
  const releaseId = resourceIdFromPrn(prn, 'release', actor.organizationId);
  const [release] = releaseId ? await db.select({ id: releases.id, soakSeconds: releases.soakSeconds }).from(releases).where(and(eq(releases.id, releaseId), eq(releases.organizationId, actor.organizationId))).limit(1) : [];
  if (!release) throw notFound('release', prn);
  const page = pageRequest({ ...query, order: 'desc' });
  const r = deviceUpdateReports;
  // Newest change first; the cursor's "inserted_at" is the report's updated_at here.
  const after = page.after ? sql`(${r.updatedAt}, ${r.id}) < (${page.after.insertedAt}::timestamptz, ${page.after.id}::uuid)` : undefined;
  const statuses = query.status?.length ? inArray(r.status, query.status) : undefined;
  const rows = await db
    .select({ id: r.id, eventId: r.eventId, deviceId: r.deviceId, identifier: devices.identifier, bundleId: r.bundleId, status: r.status, progress: r.progress, reason: r.reason, updatedAt: r.updatedAt, soakStartedAt: r.soakStartedAt, healthyAt: r.healthyAt })
    .from(r)
    .innerJoin(devices, eq(devices.id, r.deviceId))
    .where(and(eq(r.releaseId, release.id), eq(r.organizationId, actor.organizationId), statuses, after))
    .orderBy(desc(r.updatedAt), desc(r.id))
    .limit(page.limit + 1);
  const paged = toPage(rows.map((row) => ({ ...row, insertedAt: row.updatedAt })), page);
  const org = actor.organizationId;
  return {
    items: paged.items.map(
      (row): ReleaseReportWire => ({
        prn: resourcePrn(org, 'event', row.eventId),
        device_prn: resourcePrn(org, 'device', row.deviceId),
        device_identifier: row.identifier,
        bundle_prn: resourcePrn(org, 'bundle', row.bundleId),
        status: row.status,
        progress: row.progress,
        reason: row.reason,
        updated_at: toRfc3339(row.updatedAt),
        soak_ends_at: soakEndsAt(row.status, row.soakStartedAt, release.soakSeconds),
        healthy_at: toRfc3339(row.healthyAt),
      }),
    ),
    nextPage: paged.nextPage,
  };
}
