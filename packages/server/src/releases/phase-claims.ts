/**
 * Phase claims: a device's slot in a phased release, durable and safe with many server
 * processes. (release_id, device_id) is unique, so a device's claim is stable; the release's
 * phase_claim_count is the number of slots handed out, and it only grows through one
 * conditional UPDATE (`claim_count < slots`), which Postgres re-evaluates on the latest row
 * version under the row lock: concurrent claims from any number of processes can never push it
 * past the slots. A fractional phase counts against the cohort's size at claim time, read from
 * the trigger-kept cohort_device_counts (O(1) instead of counting the cohort's devices).
 *
 * The check writes the claim row, that UPDATE and its events as ONE autocommit statement
 * (claimStatementParts, update-service.ts), so the counter's row lock is held only while that
 * statement finishes and commits, never across a client round trip: claims of one release queue
 * only behind each other's commit. A check whose state read already shows the phase full asks
 * for no claim at all (resolution.ts), so it takes no lock.
 */
import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { phaseSlots } from './phase';
import { cohortDeviceCounts, phaseClaims, releases } from './schema';
import { sqlState } from '../db/errors';

export interface Claim {
  releaseId: string;
  deviceId: string;
  cohortId: string;
  organizationId: string;
  /** The phase_value resolution decided with: the slot is refused if it changed since. */
  phaseValue: number | null;
}

/** Claims actually stored for a release (tests and the benchmark compare it with the counter). */
export async function countClaims(db: Executor, releaseId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(phaseClaims).where(and(eq(phaseClaims.releaseId, releaseId)));
  return Number(row?.n ?? 0);
}

/**
 * The claim as parts of ONE statement (update-service.ts runs it with the check's events in
 * autocommit, so the counter's row lock is held only while that statement finishes and commits,
 * never across a client round trip):
 *   claim_row   inserts the device's claim (nothing when a concurrent check of it already did);
 *   claim_slot  moves the counter only when claim_row inserted and a slot is free, with the
 *               cohort's size read in the same statement (claim time);
 *   guard       raises division_by_zero (SLOT_REFUSED_CODE) when the row was inserted but the
 *               slot refused, which aborts the whole statement: nothing of the check is written.
 * `claimed` is the condition for the `device.claimed_release` event. Null: no slot can exist.
 */
export const SLOT_REFUSED_CODE = '22012';

export function claimStatementParts(claim: Claim): { ctes: { name: string; sql: SQL }[]; guard: SQL; claimed: SQL } | null {
  const phaseValue = claim.phaseValue;
  if (phaseValue === null || !Number.isFinite(phaseValue)) return null;
  if (phaseValue < 1 && phaseValue <= 0) return null;
  if (phaseValue > 1 && !(phaseSlots(phaseValue, 0) > 0)) return null;
  const cohortSize = sql`(select coalesce(sum(${cohortDeviceCounts.deviceCount}), 0)::float8 from ${cohortDeviceCounts} where ${cohortDeviceCounts.cohortId} = ${claim.cohortId})`;
  // phaseSlots (phase.ts) in SQL: a fraction of the cohort (at least 1 once it has devices), a count as is.
  const exact = sql`(${phaseValue}::float8 * floor(${cohortSize}))`;
  const slots =
    phaseValue === 1
      ? null
      : phaseValue < 1
        ? sql`(case when floor(${cohortSize}) <= 0 then 0 else greatest(1, case when abs(${exact} - round(${exact})) < 1e-9 * greatest(1, ${exact}) then round(${exact}) else floor(${exact}) end) end)`
        : sql`${phaseValue}::float8`;
  const bounded = slots === null ? sql`` : sql`and ${releases.phaseClaimCount} < ${slots}`;
  return {
    ctes: [
      {
        name: 'claim_row',
        sql: sql`insert into ${phaseClaims} (release_id, device_id, organization_id) values (${claim.releaseId}, ${claim.deviceId}, ${claim.organizationId}) on conflict do nothing returning release_id`,
      },
      {
        name: 'claim_slot',
        sql: sql`update ${releases} set phase_claim_count = phase_claim_count + 1
          where ${releases.id} = ${claim.releaseId} and ${releases.phaseMode} = 'numeric' and ${releases.phaseValue} = ${phaseValue} ${bounded}
            and exists (select 1 from claim_row) returning ${releases.id}`,
      },
    ],
    guard: sql`(case when exists (select 1 from claim_row) then 1 / (select count(*)::int from claim_slot) else 1 end) = 1`,
    claimed: sql`exists (select 1 from claim_row)`,
  };
}

/** True when `error` (or what a driver wrapped) is the claim statement's refused slot. */
export function isSlotRefused(error: unknown): boolean {
  return sqlState(error) === SLOT_REFUSED_CODE;
}
