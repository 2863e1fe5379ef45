/**
 * Phase claims: a device's slot in a phased release, durable and safe with many server
 * processes. (release_id, device_id) is unique, so a device's claim is stable; the release's
 * phase_claim_count is the number of slots handed out, and it only moves inside the statement
 * that holds the release row's lock and inserts the claim rows (claimBatchParts): the counter
 * read under that lock is the latest, so concurrent claims from any number of processes can
 * never push it past the slots. A fractional phase counts against the cohort's size at claim
 * time, read from the trigger-kept cohort_device_counts (O(1) instead of counting the cohort).
 *
 * The claims of the checks a process finishes together, their events and the rest of those
 * checks' writes are ONE autocommit statement (check-writes.ts), so the counter's row lock is
 * taken once per group and held only while that statement finishes and commits, never across a
 * client round trip. A check whose state read already shows the phase full asks for no claim at
 * all (resolution.ts), so it takes no lock.
 */
import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { PHASE_COUNT_MAX, PHASE_COUNT_MIN } from './phase';
import { cohortDeviceCounts, phaseClaims, releases } from './schema';

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
 * phaseSlots (phase.ts) in SQL, for a phase value and the cohort's size as SQL expressions: a
 * fraction of the cohort (at least 1 once it has devices), an integer count as is, anything else
 * (including 1, which needs no claim) none.
 */
function slotsSql(phaseValue: SQL, cohortSize: SQL): SQL {
  const exact = sql`(${phaseValue} * floor(${cohortSize}))`;
  return sql`(case
    when ${phaseValue} > 0 and ${phaseValue} < 1 then
      case when floor(${cohortSize}) <= 0 then 0
        else greatest(1, case when abs(${exact} - round(${exact})) < 1e-9 * greatest(1, ${exact}) then round(${exact}) else floor(${exact}) end) end
    when ${phaseValue} >= ${PHASE_COUNT_MIN} and ${phaseValue} <= ${PHASE_COUNT_MAX} and ${phaseValue} = floor(${phaseValue}) then ${phaseValue}
    else 0 end)`;
}

/**
 * The claims of several checks as parts of ONE statement (check-writes.ts runs it with the
 * checks' events in autocommit, so each release's counter row is locked once per statement and
 * only until it commits, never across a client round trip):
 *   claim_wanted   the claims asked for, in order (at most one per release and device);
 *   claim_locked   the releases' rows, locked in id order, still numeric with the phase value
 *                  resolution decided with (a changed phase refuses the claim);
 *   claim_ranked   the wanted claims the device does not hold yet, each with the counter value it
 *                  would take and the slots the phase has now (the cohort's size at claim time);
 *   claim_granted  inserts those that fit (position <= slots); a concurrent insert of the same
 *                  claim makes it do nothing, which only ever hands out fewer slots, never more;
 *   claim_counted  moves each counter by exactly the rows inserted, under the lock taken above.
 * `granted(claim)` is the condition "this claim was inserted": the claimed_release event, and
 * every other write of its check, are kept only when it holds. A check whose claim is not
 * granted wrote nothing and resolves again (update-service.ts).
 */
export function claimBatchParts(claims: readonly Claim[]): { ctes: { name: string; sql: SQL; materialized?: boolean }[]; granted(claim: Claim): SQL; select: SQL } {
  const wanted = sql.join(
    claims.map((c, i) => sql`(${c.releaseId}::uuid, ${c.deviceId}::uuid, ${c.organizationId}::uuid, ${c.phaseValue}::float8, ${i}::int)`),
    sql`, `,
  );
  const cohortSize = sql`(select coalesce(sum(${cohortDeviceCounts.deviceCount}), 0)::float8 from ${cohortDeviceCounts} where ${cohortDeviceCounts.cohortId} = l.cohort_id)`;
  return {
    ctes: [
      { name: 'claim_wanted', sql: sql`select * from (values ${wanted}) as w(release_id, device_id, organization_id, phase_value, ord)` },
      {
        name: 'claim_locked',
        sql: sql`select ${releases.id} as id, ${releases.phaseClaimCount} as taken, ${releases.phaseValue} as phase_value, ${releases.cohortId} as cohort_id
          from ${releases} where ${releases.id} in (select release_id from claim_wanted) and ${releases.phaseMode} = 'numeric'
          order by ${releases.id} for update`,
        materialized: true,
      },
      {
        name: 'claim_ranked',
        sql: sql`select w.release_id, w.device_id, w.organization_id,
            l.taken + row_number() over (partition by w.release_id order by w.ord) as position, ${slotsSql(sql`w.phase_value`, cohortSize)} as slots
          from claim_wanted w join claim_locked l on l.id = w.release_id and l.phase_value = w.phase_value
          where not exists (select 1 from ${phaseClaims} c where c.release_id = w.release_id and c.device_id = w.device_id)`,
      },
      {
        name: 'claim_granted',
        sql: sql`insert into ${phaseClaims} (release_id, device_id, organization_id)
          select release_id, device_id, organization_id from claim_ranked where position <= slots
          on conflict do nothing returning release_id, device_id`,
      },
      {
        name: 'claim_counted',
        sql: sql`update ${releases} set phase_claim_count = ${releases.phaseClaimCount} + g.n
          from (select release_id, count(*)::int as n from claim_granted group by release_id) g
          where ${releases.id} = g.release_id returning ${releases.id}`,
      },
    ],
    granted: (claim) => sql`exists (select 1 from claim_granted g where g.release_id = ${claim.releaseId}::uuid and g.device_id = ${claim.deviceId}::uuid)`,
    select: sql`select release_id::text as release_id, device_id::text as device_id from claim_granted`,
  };
}
