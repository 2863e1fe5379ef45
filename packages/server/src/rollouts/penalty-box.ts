/**
 * The penalty box in the database (rules: penalty-rule.ts). A failed or rolled-back report
 * counts in the report's own transaction (update-reports/service.ts), under the (release,
 * device) row's lock, so reports arriving at several servers at once each see the ones before.
 * The update check reads a device's rows only when its cohort has a device resting
 * (updates/check-state.ts). Operators list the devices resting from a release or the releases a
 * device rests from, and release a device (DELETE), which starts its count afresh.
 */
import { and, eq, sql } from 'drizzle-orm';
import { resourceIdFromPrn, resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import type { Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { notFound } from '../http/errors';
import { getRelease } from '../releases/service';
import { releases } from '../releases/schema';
import { afterFailure, isResting, settingsOf } from './penalty-rule';
import { penaltyBox } from './schema';
import { rowsOf } from './counts';

export async function countFailure(tx: Executor, releaseId: string, deviceId: string, now: Date): Promise<void> {
  const [release] = await tx.select({ organizationId: releases.organizationId, cohortId: releases.cohortId, penaltyBox: releases.penaltyBox }).from(releases).where(eq(releases.id, releaseId));
  if (!release) return;
  await tx.insert(penaltyBox).values({ releaseId, deviceId, organizationId: release.organizationId, cohortId: release.cohortId }).onConflictDoNothing();
  const [row] = await rowsOf<{ failed_at: string[] | string; rests: number; rest_until: string | null }>(
    tx.execute(sql`select array_to_json(failed_at) as failed_at, rests, rest_until::text as rest_until from penalty_box where release_id = ${releaseId} and device_id = ${deviceId} for update`),
  );
  const stored = typeof row.failed_at === 'string' ? (JSON.parse(row.failed_at) as string[]) : row.failed_at;
  const failedAt = stored.map((at) => Date.parse(at));
  const next = afterFailure(settingsOf(release.penaltyBox ?? null), { failedAt, rests: Number(row.rests), restUntil: row.rest_until === null ? null : Date.parse(row.rest_until) }, now.getTime());
  const stamps = next.failedAt.map((at) => new Date(at).toISOString());
  await tx.execute(sql`
    update penalty_box set failed_at = ${`{${stamps.join(',')}}`}::timestamptz[], rests = ${next.rests},
      rest_until = ${next.restUntil === null ? null : new Date(next.restUntil).toISOString()}, updated_at = now()
    where release_id = ${releaseId} and device_id = ${deviceId}`);
}

export interface PenaltyEntry {
  release_prn: string;
  device_prn: string;
  resting: boolean;
  rest_until: string | null;
  rests: number;
  failures: number;
}

type Row = typeof penaltyBox.$inferSelect;

function entryOf(row: Row, now: Date): PenaltyEntry {
  const restUntil = row.restUntil === null ? null : Date.parse(row.restUntil);
  return {
    release_prn: resourcePrn(row.organizationId, 'release', row.releaseId),
    device_prn: resourcePrn(row.organizationId, 'device', row.deviceId),
    resting: isResting({ restUntil }, now.getTime()),
    rest_until: toRfc3339(row.restUntil),
    rests: row.rests,
    failures: row.failedAt.length,
  };
}

/** Devices with a count or a rest on the release (resting ones first). */
export async function releasePenalties(db: Executor, actor: Actor, releasePrn: string, now = new Date()): Promise<PenaltyEntry[]> {
  const release = await getRelease(db, actor, releasePrn);
  const rows = await db.select().from(penaltyBox).where(eq(penaltyBox.releaseId, release.id)).limit(10_000);
  return rows.map((row) => entryOf(row, now)).sort((a, b) => Number(b.resting) - Number(a.resting));
}

export async function devicePenalties(db: Executor, actor: Actor, devicePrn: string, now = new Date()): Promise<PenaltyEntry[]> {
  const deviceId = resourceIdFromPrn(devicePrn, 'device', actor.organizationId);
  const [device] = deviceId === null ? [] : await rowsOf<{ id: string }>(db.execute(sql`select id from devices where id = ${deviceId} and organization_id = ${actor.organizationId}`));
  if (!device) throw notFound('device', devicePrn);
  const rows = await db.select().from(penaltyBox).where(and(eq(penaltyBox.deviceId, device.id), eq(penaltyBox.organizationId, actor.organizationId)));
  return rows.map((row) => entryOf(row, now));
}

/** Takes the device out of the release's box and forgets its failures: it is offered the release again at once. */
export async function releaseFromPenaltyBox(db: Executor, actor: Actor, releasePrn: string, devicePrn: string): Promise<void> {
  const release = await getRelease(db, actor, releasePrn);
  const deviceId = resourceIdFromPrn(devicePrn, 'device', actor.organizationId);
  const deleted = deviceId === null ? [] : await db.delete(penaltyBox).where(and(eq(penaltyBox.releaseId, release.id), eq(penaltyBox.deviceId, deviceId))).returning({ deviceId: penaltyBox.deviceId });
  if (deleted.length === 0) throw notFound('penalty_box', devicePrn);
}

/** Devices resting from the release now (rollout progress). */
export async function restingCount(db: Executor, releaseId: string, now = new Date()): Promise<number> {
  const [row] = await rowsOf<{ n: number | string }>(
    db.execute(sql`select count(*) as n from penalty_box where release_id = ${releaseId} and rest_until > ${now.toISOString()}::timestamptz`),
  );
  return Number(row?.n ?? 0);
}
