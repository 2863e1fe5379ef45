/**
 * Phase claims: a device's slot in a phased release, durable and safe with many server
 * processes. A claim is taken inside the check's transaction holding the release row's lock, so
 * claims of one release are serialised across processes and the count they are checked against
 * is exact; (release_id, device_id) is unique, so a device's claim is stable. A fractional phase
 * counts against the cohort's devices at claim time.
 */
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { devices } from '../devices/schema';
import { isPhased, phaseSlots } from './phase';
import { phaseClaims, releases } from './schema';

export async function countCohortDevices(db: Executor, cohortId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(devices).where(eq(devices.cohortId, cohortId));
  return Number(row?.n ?? 0);
}

/**
 * Cohort sizes for the read-only first pass of a check, cached for a second per process: a
 * 100,000-device count on every check would dominate it. Only the claim itself must be exact,
 * and claimPhaseSlot counts again; a stale size here can at worst show a free slot the claim
 * then refuses (the check re-resolves), or delay a slot until the next check.
 */
const SIZE_TTL_MS = 1000;
const sizes = new Map<string, { value: number; at: number }>();
export async function cachedCohortDeviceCount(db: Executor, cohortId: string): Promise<number> {
  const hit = sizes.get(cohortId);
  if (hit && Date.now() - hit.at < SIZE_TTL_MS) return hit.value;
  const value = await countCohortDevices(db, cohortId);
  sizes.set(cohortId, { value, at: Date.now() });
  if (sizes.size > 10_000) sizes.clear();
  return value;
}

/** The releases among `releaseIds` this device already holds a claim on. */
export async function claimedReleaseIds(db: Executor, deviceId: string, releaseIds: string[]): Promise<Set<string>> {
  if (releaseIds.length === 0) return new Set();
  const rows = await db
    .select({ releaseId: phaseClaims.releaseId })
    .from(phaseClaims)
    .where(and(eq(phaseClaims.deviceId, deviceId), inArray(phaseClaims.releaseId, releaseIds)));
  return new Set(rows.map((row) => row.releaseId));
}

export type ClaimOutcome =
  | { kind: 'claimed' }
  | { kind: 'already_claimed' }
  | { kind: 'not_phased' }
  | { kind: 'full'; claimCount: number; cohortDeviceCount: number };

/** Must run inside a transaction: the release row lock is held until it commits. */
export async function claimPhaseSlot(tx: Executor, claim: { releaseId: string; deviceId: string; cohortId: string; organizationId: string }): Promise<ClaimOutcome> {
  // Counted before the lock so the lock is held briefly; a device added in between is as if it
  // had been added just after this claim.
  const cohortDeviceCount = await countCohortDevices(tx, claim.cohortId);
  const [release] = await tx
    .select({ phaseMode: releases.phaseMode, phaseValue: releases.phaseValue, claimCount: releases.phaseClaimCount })
    .from(releases)
    .where(eq(releases.id, claim.releaseId))
    .for('update');
  if (!release || !isPhased(release)) return { kind: 'not_phased' };
  const [held] = await tx
    .select({ one: sql`1` })
    .from(phaseClaims)
    .where(and(eq(phaseClaims.releaseId, claim.releaseId), eq(phaseClaims.deviceId, claim.deviceId)));
  if (held) return { kind: 'already_claimed' };
  if (release.claimCount >= phaseSlots(release.phaseValue, cohortDeviceCount)) return { kind: 'full', claimCount: release.claimCount, cohortDeviceCount };
  await tx.insert(phaseClaims).values({ releaseId: claim.releaseId, deviceId: claim.deviceId, organizationId: claim.organizationId });
  await tx.update(releases).set({ phaseClaimCount: sql`${releases.phaseClaimCount} + 1` }).where(eq(releases.id, claim.releaseId));
  return { kind: 'claimed' };
}

/** Claims actually stored for a release (tests and the benchmark compare it with the counter). */
export async function countClaims(db: Executor, releaseId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(phaseClaims).where(eq(phaseClaims.releaseId, releaseId));
  return Number(row?.n ?? 0);
}
