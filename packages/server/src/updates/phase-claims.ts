/**
 * Phase claims: a device's slot in a phased release, durable and safe with many server
 * processes. (release_id, device_id) is unique, so a device's claim is stable; the release's
 * phase_claim_count is the number of slots handed out, and it only moves inside the statement
 * that holds the release row's lock and inserts the claim rows (CLAIM_CTES): the counter
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
import { and, count, eq } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { PHASE_COUNT_MAX, PHASE_COUNT_MIN } from './core/phase';
import { phaseClaims } from '../releases/schema';
import { parameterArrays, unnestParameters } from '../db/array-parameters';

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
 * phaseSlots (phase.ts) in SQL, over the column `phase_value` and the cohort's size `cohort_size`:
 * a fraction of the cohort (at least 1 once it has devices), an integer count as is, anything
 * else (including 1, which needs no claim) none.
 */
const SLOTS = `(case
    when phase_value > 0 and phase_value < 1 then
      case when floor(cohort_size) <= 0 then 0
        else greatest(1, case when abs(phase_value * floor(cohort_size) - round(phase_value * floor(cohort_size))) < 1e-9 * greatest(1, phase_value * floor(cohort_size))
          then round(phase_value * floor(cohort_size)) else floor(phase_value * floor(cohort_size)) end) end
    when phase_value >= ${PHASE_COUNT_MIN} and phase_value <= ${PHASE_COUNT_MAX} and phase_value = floor(phase_value) then phase_value
    else 0 end)`;

/** The types of CLAIM_CTES's parameters: release, device and organization ids, the phase value. */
const CLAIM_TYPES = ['uuid', 'uuid', 'uuid', 'float8'];

/** The claims of a group as the parameter arrays of CLAIM_CTES, in `ord` order. */
export function claimArrays(claims: readonly Claim[]): string[] {
  return parameterArrays(CLAIM_TYPES, [claims.map((c) => c.releaseId), claims.map((c) => c.deviceId), claims.map((c) => c.organizationId), claims.map((c) => c.phaseValue)]);
}

/**
 * The claims of several checks as CTEs of ONE statement, fixed text over four parameter arrays
 * (claimArrays: `$1` release ids, `$2` device ids, `$3` organization ids, `$4` the phase values
 * resolution decided with; a claim's `ord` is its index, from 1). check-writes.ts runs it with the
 * checks' events in autocommit, so each release's counter row is locked once per statement and
 * only until it commits, never across a client round trip:
 *   claim_wanted   the claims asked for (at most one per release and device);
 *   claim_locked   the releases' rows, locked in id order, still numeric with the phase value
 *                  resolution decided with (a changed phase refuses the claim);
 *   claim_ranked   the wanted claims the device does not hold yet, each with the counter value it
 *                  would take and the slots the phase has now (the cohort's size at claim time);
 *   claim_granted  inserts those that fit (position <= slots); a concurrent insert of the same
 *                  claim makes it do nothing, which only ever hands out fewer slots, never more;
 *   claim_counted  moves each counter by exactly the rows inserted, under the lock taken above;
 *   claim_kept     the `ord` of each claim granted: a check's other writes are kept only with it,
 *                  and a check whose claim is not granted wrote nothing and resolves again.
 */
export const CLAIM_CTES = `claim_wanted as (
    select * from ${unnestParameters(1, CLAIM_TYPES)} with ordinality as w(release_id, device_id, organization_id, phase_value, ord)
  ),
  claim_locked as materialized (
    select id, phase_claim_count as taken, phase_value, cohort_id from releases
    where id in (select release_id from claim_wanted) and phase_mode = 'numeric'
    order by id for update
  ),
  claim_ranked as (
    select release_id, device_id, organization_id, position, ${SLOTS} as slots
    from (
      select w.release_id, w.device_id, w.organization_id, w.phase_value,
        l.taken + row_number() over (partition by w.release_id order by w.ord) as position,
        (select coalesce(sum(device_count), 0)::float8 from cohort_device_counts where cohort_id = l.cohort_id) as cohort_size
      from claim_wanted w join claim_locked l on l.id = w.release_id and l.phase_value = w.phase_value
      where not exists (select 1 from phase_claims c where c.release_id = w.release_id and c.device_id = w.device_id)
    ) ranked
  ),
  claim_granted as (
    insert into phase_claims (release_id, device_id, organization_id)
    select release_id, device_id, organization_id from claim_ranked where position <= slots
    on conflict do nothing returning release_id, device_id
  ),
  claim_counted as (
    update releases set phase_claim_count = phase_claim_count + g.n
    from (select release_id, count(*)::int as n from claim_granted group by release_id) g
    where releases.id = g.release_id returning releases.id
  ),
  claim_kept as (
    select w.ord from claim_wanted w join claim_granted g on g.release_id = w.release_id and g.device_id = w.device_id
  )`;
