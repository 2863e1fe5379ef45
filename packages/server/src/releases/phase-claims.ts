/**
 * Phase claims: a device's slot in a phased release, durable and safe with many server
 * processes. (release_id, device_id) is unique, so a device's claim is stable; the release's
 * phase_claim_count is the number of slots handed out, and it only grows through one
 * conditional UPDATE (`claim_count < slots`), which Postgres re-evaluates on the latest row
 * version under the row lock: concurrent claims from any number of processes can never push it
 * past the slots. A fractional phase counts against the cohort's size at claim time, read from
 * the trigger-kept cohort_device_counts (O(1) instead of counting the cohort's devices).
 *
 * The counter's row lock is held from that UPDATE to the commit, so the check takes it as the
 * last statement of its transaction (update-service.ts): claims of one release queue only
 * behind each other's commit, not behind their events.
 */
import { and, count, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { phaseSlots } from './phase';
import { cohortDeviceCounts, phaseClaims, releases } from './schema';

export async function countCohortDevices(db: Executor, cohortId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<string | number>`coalesce(sum(${cohortDeviceCounts.deviceCount}), 0)` })
    .from(cohortDeviceCounts)
    .where(eq(cohortDeviceCounts.cohortId, cohortId));
  return Number(row?.n ?? 0);
}

export interface Claim {
  releaseId: string;
  deviceId: string;
  cohortId: string;
  organizationId: string;
  /** The phase_value resolution decided with: the slot is refused if it changed since. */
  phaseValue: number | null;
}

/** Stores the device's claim row; false when it already had one (a concurrent check of it). */
export async function insertClaim(tx: Executor, claim: Claim): Promise<boolean> {
  const inserted = await tx
    .insert(phaseClaims)
    .values({ releaseId: claim.releaseId, deviceId: claim.deviceId, organizationId: claim.organizationId })
    .onConflictDoNothing()
    .returning({ releaseId: phaseClaims.releaseId });
  return inserted.length === 1;
}

/**
 * Takes one slot: true when the counter moved, false when the phase is full or its value
 * changed meanwhile (the caller rolls back and resolves again). Must run inside the check's
 * transaction; the row lock it takes lasts until that transaction ends.
 */
export async function takeSlot(tx: Executor, claim: Claim): Promise<boolean> {
  const cohortDeviceCount = claim.phaseValue !== null && claim.phaseValue < 1 ? await countCohortDevices(tx, claim.cohortId) : 0;
  const slots = phaseSlots(claim.phaseValue, cohortDeviceCount);
  if (!(slots > 0)) return false;
  const bounded = Number.isFinite(slots) ? sql`and ${releases.phaseClaimCount} < ${slots}` : sql``;
  const taken = await tx
    .update(releases)
    .set({ phaseClaimCount: sql`${releases.phaseClaimCount} + 1` })
    .where(sql`${releases.id} = ${claim.releaseId} and ${releases.phaseMode} = 'numeric' and ${releases.phaseValue} = ${claim.phaseValue} ${bounded}`)
    .returning({ claims: releases.phaseClaimCount });
  return taken.length === 1;
}

/** Claims actually stored for a release (tests and the benchmark compare it with the counter). */
export async function countClaims(db: Executor, releaseId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(phaseClaims).where(and(eq(phaseClaims.releaseId, releaseId)));
  return Number(row?.n ?? 0);
}
