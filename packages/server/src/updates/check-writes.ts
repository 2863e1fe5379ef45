/**
 * The writes of update checks, grouped: checks finishing at about the same time in this process
 * are written by ONE autocommit statement of fixed text, and each caller waits for its group's
 * commit. Each check's writes stay all-or-nothing (a claim exists exactly when its event does); a
 * group failing as a whole is retried check by check. A check may carry its connection's
 * deferred writes and its admission as a guard. Events-only groups commit without waiting for
 * their WAL flush. Why, and what it bought: docs/decisions/003-grouped-check-writes.md.
 */
import { queryArrayRows } from '../db/array-rows';
import type { Executor } from '../db/connection';
import { groupsPerExecutor, StatementGroups } from '../db/statement-groups';
import { lastConnectedDue } from '../devices/last-connected';
import { EVENT_RELATION_COLUMNS, EVENT_RELATION_TYPES, eventRelationValues, recordingCtes, type NewEvent } from '../events/service';
import { CLAIM_CTES, claimArrays, type Claim } from './phase-claims';
import { arrayParameter, parameterArray, parameterArrays, unnestParameters } from '../db/array-parameters';
import { admissionGuardArrays, admissionGuardCte, type AdmissionGuard, type ConnectionWrites } from '../admission/port';

/** The reported state a `write` check stores on the device. */
export interface ReportedUpdate {
  deviceId: string;
  releasePrn: string | null;
  bundlePrn: string | null;
  releaseVersion: string | null;
}

export interface CheckWrite {
  deviceId: string;
  connection?: ConnectionWrites | null;
  /** `device.checked_for_release`, and `device.release_changed` when the write changed it. */
  events: NewEvent[];
  deviceUpdate: ReportedUpdate | null;
  /** A slot the check takes, with its `device.claimed_release`. */
  claim: { claim: Claim; event: NewEvent } | null;
  /** The request's admission, proven by this statement (see above): events only, a connection's last_connected_at not included. */
  guard?: AdmissionGuard | null;
}

export type CheckWriteOutcome = 'written' | 'slot_refused' | 'not_admitted';

/**
 * Groups at the database at once per process: two, so one group's round trip overlaps the next
 * one's building. More rarely help: see MIN_GROUP_WHEN_BUSY for what was measured.
 */
const MAX_IN_FLIGHT = 2;
/** Checks per group: keeps one statement's arrays and its lock-holding time small. */
const MAX_GROUP = 64;
/**
 * While a group is out, the next leaves with at least this many checks (db/statement-groups.ts);
 * fewer wait for a group to come back, at most one statement's time. A group's statement has a
 * fixed cost about that of 24 checks' rows: measured from groups of 12 against 22 on the kept-alive
 * load, about 0.29 ms of PostgreSQL's CPU per statement (its executor, commit and WAL flush)
 * against 0.012 ms per check, and 0.16 ms of this process's (the driver's round trip, the
 * parameters). A smaller group sent beside one in flight pays more for the statement than for its
 * checks. Once events-only groups stopped waiting for their WAL flush, 2 groups out with at least
 * 40-48 checks beside one beat 4 out with 24 on 64 kept-alive connections (bench/compare-bundles.ts,
 * bundles alternated) in 16 of 20 rounds; the three runs' means moved by +18%, 0% and +3%. The
 * groups stayed the same size (26-28 checks per transaction in both); what changes is that at
 * most two PostgreSQL backends compete with this process for the machine's cores at a time.
 */
const MIN_GROUP_WHEN_BUSY = 48;

/** The event columns (events/service.ts EVENT_RELATION_COLUMNS), as named and as selected. */
const EVENT_NAMES = EVENT_RELATION_COLUMNS.join(', ');
const EVENT_SELECTION = EVENT_RELATION_COLUMNS.map((column) => `e.${column}`).join(', ');
/** The types of the group statement's device updates (`$14`-`$18`). */
const UPDATE_TYPES = ['uuid', 'text', 'text', 'text', 'int8'];

/**
 * The group's statement, ONE fixed text whatever the group holds: every value comes as a
 * parameter array (claims `$1`-`$4` for CLAIM_CTES, events `$5`-`$13`, device updates `$14`-`$18`,
 * devices whose last_connected_at is due `$19`, admission guards `$20`-`$25`), so PostgreSQL
 * parses and plans it once per connection instead of once per group. An event or device update
 * with a `claim_ord` is kept only when that claim is granted (claim_kept); one without belongs
 * to a check that asked for no claim, or to a connection. An event with a `guard_ord` is kept
 * only when that guard holds (admission_guards_held). A device's reported state and its
 * last_connected_at are ONE update of its row (device_writes): two data-modifying CTEs updating
 * the same row, only one would take effect. Built on first use: the event hooks (webhook outbox
 * rows) register when their modules load.
 */
let groupStatement: string | undefined;
function groupStatementText(): string {
  const due = lastConnectedDue('d');
  return `with ${CLAIM_CTES},
  ${admissionGuardCte(20)},
  check_events as materialized (
    select ${EVENT_SELECTION}
    from ${unnestParameters(5, [...EVENT_RELATION_TYPES, 'int8', 'int8'])} as e(${EVENT_NAMES}, claim_ord, guard_ord)
    where (e.claim_ord is null or e.claim_ord in (select ord from claim_kept)) and ${GUARD_HELD}
  ),
  ${recordingCtes('check_events').join(',\n  ')},
  device_writes as (
    select coalesce(u.id, t.id) as id, u.id is not null and (u.claim_ord is null or u.claim_ord in (select ord from claim_kept)) as report,
      u.release_prn, u.bundle_prn, u.release_version, t.id is not null as touch
    from ${unnestParameters(14, UPDATE_TYPES)} as u(id, release_prn, bundle_prn, release_version, claim_ord)
    full join unnest(${arrayParameter(19, 'uuid')}) as t(id) on t.id = u.id
  ),
  written_devices as (
    update devices d set
      reported_release_prn = case when w.report then w.release_prn else d.reported_release_prn end,
      reported_bundle_prn = case when w.report then w.bundle_prn else d.reported_bundle_prn end,
      reported_release_version = case when w.report then w.release_version else d.reported_release_version end,
      updated_at = case when w.report then now() else d.updated_at end,
      last_connected_at = case when w.touch and ${due} then now() else d.last_connected_at end
    from device_writes w
    where d.id = w.id and (w.report or (w.touch and ${due}))
  )
  select 'claim', release_id::text, device_id::text from claim_granted
  union all select 'guard', ord::text, null from admission_guards_held`;
}

/** An event is kept when it has no guard or its guard holds. */
const GUARD_HELD = '(e.guard_ord is null or e.guard_ord in (select ord from admission_guards_held))';
/** True, having set this transaction's commit not to wait for its WAL flush (an InitPlan: evaluated once). */
const ASYNC_COMMIT = "(select set_config('synchronous_commit', 'off', true)) = 'off'";

/**
 * The statement of a group that writes events only (no claim, no device row): the common case,
 * a device checking again and running what it reported before. The claim and device CTEs, even
 * empty, cost PostgreSQL about a quarter of the full statement's time (measured alone: 0.33-0.44
 * against 0.45-0.56 ms of backend CPU), which a small group pays nearly alone. Events `$1`-`$8`
 * (the last their guard_ord), admission guards `$9`-`$14`; answers the guards that held.
 *
 * `asyncCommit` (an autocommit group, see the header) turns `synchronous_commit` off for the
 * statement's own transaction: `set_config(..., true)` lasts until its end, and PostgreSQL reads
 * the setting at commit. It is a condition of every event kept, so it runs whenever one is
 * written; a group that keeps none has written nothing and has no flush to wait for anyway.
 */
const eventsStatements = new Map<boolean, string>();
function eventsStatementText(asyncCommit: boolean): string {
  const commit = asyncCommit ? ` and ${ASYNC_COMMIT}` : '';
  return `with ${admissionGuardCte(9)},
  check_events as materialized (
    select ${EVENT_SELECTION}
    from ${unnestParameters(1, [...EVENT_RELATION_TYPES, 'int8'])} as e(${EVENT_NAMES}, guard_ord)
    where ${GUARD_HELD}${commit}
  ),
  ${recordingCtes('check_events').join(',\n  ')}
  select 'guard', ord::text, null from admission_guards_held`;
}

/** The keys of what a group's statement granted: claims (`claim|release|device`) and guards that held (`guard|ord`). */
function grantedKeys(rows: unknown[][]): Set<string> {
  return new Set(rows.map((row) => row.filter((cell) => cell !== null).join('|')));
}

/**
 * Writes `group` in one statement; answers each write's outcome, in order. `autocommit`: the
 * statement is its own transaction (not a caller's), so an events-only group may commit without
 * waiting for its flush (see the header).
 */
async function writeGroup(db: Executor, group: readonly CheckWrite[], autocommit: boolean): Promise<CheckWriteOutcome[]> {
  const claims: Claim[] = [];
  const guards: AdmissionGuard[] = [];
  const events: { event: NewEvent; ord: number | null; guardOrd: number | null }[] = [];
  const updates: { update: ReportedUpdate; ord: number | null }[] = [];
  const touched: string[] = [];
  // Each write's guard number (from 1, as admission_guards_held counts), for its outcome.
  const guardOrds: (number | null)[] = [];
  for (const write of group) {
    let ord: number | null = null;
    let guardOrd: number | null = null;
    if (write.claim) {
      claims.push(write.claim.claim);
      ord = claims.length; // claim_wanted numbers its rows from 1
    }
    if (write.guard) {
      // Only events are gated by a guard: anything else would be written whether it holds or not.
      if (write.claim || write.deviceUpdate || write.connection?.touch) throw new Error('a guarded check writes events only');
      guards.push(write.guard);
      guardOrd = guards.length;
    }
    guardOrds.push(guardOrd);
    if (write.connection) {
      events.push({ event: write.connection.event, ord: null, guardOrd });
      if (write.connection.touch) touched.push(write.deviceId);
    }
    for (const event of write.events) events.push({ event, ord, guardOrd });
    if (write.claim) events.push({ event: write.claim.event, ord, guardOrd });
    if (write.deviceUpdate) updates.push({ update: write.deviceUpdate, ord });
  }
  const eventColumns = eventRelationValues(events.map((e) => e.event));
  let rows: unknown[][];
  if (claims.length === 0 && updates.length === 0 && touched.length === 0) {
    let text = eventsStatements.get(autocommit);
    if (!text) eventsStatements.set(autocommit, (text = eventsStatementText(autocommit)));
    const values = parameterArrays([...EVENT_RELATION_TYPES, 'int8'], [...eventColumns, events.map((e) => e.guardOrd)]);
    const name = autocommit ? 'release_check_events_async' : 'release_check_events';
    rows = await queryArrayRows(db, name, text, [...values, ...admissionGuardArrays(guards)]);
  } else {
    const values = [
      ...claimArrays(claims),
      ...parameterArrays([...EVENT_RELATION_TYPES, 'int8', 'int8'], [...eventColumns, events.map((e) => e.ord), events.map((e) => e.guardOrd)]),
      ...parameterArrays(UPDATE_TYPES, [
        updates.map((u) => u.update.deviceId),
        updates.map((u) => u.update.releasePrn),
        updates.map((u) => u.update.bundlePrn),
        updates.map((u) => u.update.releaseVersion),
        updates.map((u) => u.ord),
      ]),
      parameterArray('uuid', touched),
      ...admissionGuardArrays(guards),
    ];
    groupStatement ??= groupStatementText();
    rows = await queryArrayRows(db, 'release_check_writes', groupStatement, values);
  }
  const granted = grantedKeys(rows);
  return group.map((write, i) => {
    if (guardOrds[i] !== null && !granted.has(`guard|${guardOrds[i]}`)) return 'not_admitted';
    if (!write.claim) return 'written';
    return granted.has(`claim|${write.claim.claim.releaseId}|${write.claim.claim.deviceId}`) ? 'written' : 'slot_refused';
  });
}

/**
 * The grouped writes of one database handle. Two checks of one device never share a group: one
 * statement would update its row twice (and could claim twice), so the later check waits for the
 * next group, where it sees the earlier one's writes like any later check.
 */
const groupsOf = groupsPerExecutor(
  (db: Executor) =>
    new StatementGroups<CheckWrite, CheckWriteOutcome>(
      (writes) => writeGroup(db, writes, true),
      { maxInFlight: MAX_IN_FLIGHT, maxGroup: MAX_GROUP, minGroupWhenBusy: MIN_GROUP_WHEN_BUSY, exclusiveKey: (write) => write.deviceId },
    ),
);


/** Writes one check's events, device update and claim; resolves once they are committed. */
export async function writeCheck(db: Executor, write: CheckWrite): Promise<CheckWriteOutcome> {
  // Inside a caller's transaction the writes belong to it alone: no grouping with other checks.
  if ('rollback' in db) return (await writeGroup(db, [write], false))[0];
  return groupsOf(db).submit(write);
}
