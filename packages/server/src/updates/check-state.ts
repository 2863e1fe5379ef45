/**
 * Everything an update check must read fresh about one device, in one round trip: its cohort's
 * chain stamp (chain-cache.ts), the cohort's size (kept by triggers, cohortDeviceCounts), the
 * live claim counter of the cohort's phased release, the device's claims and the ids of its
 * bundle overrides. Everything else (the chain itself) comes from memory.
 */
import { queryArrayRows } from '../db/array-rows';
import type { Executor } from '../db/connection';
import type { DeviceRow } from '../devices/service';
import { StatementGroups } from '../db/statement-groups';
import { parameterArrays, unnestParameters } from '../db/array-parameters';
import { batchKey } from '../db/request-scope';

export interface CheckState {
  chainVersion: number | null;
  cohortDeviceCount: number;
  /** Claim counter of each phased release of the cohort (phase_value other than 1). */
  claimCounts: Map<string, number>;
  /** Releases the device holds a claim on. */
  claimedReleaseIds: Set<string>;
  overrideIds: string[];
  /** Releases the device rests from (the penalty box), with the end of the rest (ms); may have ended. */
  restUntil: Map<string, number>;
  /** The cohort's capped releases (their live slot counts: slot-claims.ts slotsInUseCached). */
  cappedIds: string[];
  /** Capped releases the device holds a live slot of. */
  slotsHeld: Set<string>;
}

/**
 * Two named statements, each planned once per connection (db/array-rows.ts): the state alone for
 * a device already loaded (the device API authenticated it), and the device's fields an update
 * check uses with its state for the admin API, which starts from a prn: one round trip. Each
 * reads a batch of devices over parameter arrays (db/statement-groups.ts: the checks asking at about the
 * same time share one statement); a row's `ord` says which read it answers.
 */
const COHORT_STATE = `select x.cohort_id,
      (select version from release_chain_versions where cohort_id = x.cohort_id) as chain_version,
      (select coalesce(sum(device_count), 0) from cohort_device_counts where cohort_id = x.cohort_id) as device_count,
      (select json_agg(json_build_object('id', id, 'claims', phase_claim_count)) from releases where cohort_id = x.cohort_id and phase_value is distinct from 1) as phased,
      exists (select 1 from penalty_box where cohort_id = x.cohort_id and rest_until is not null) as resting,
      (select json_agg(r.id) from releases r where r.cohort_id = x.cohort_id and r.max_concurrent is not null) as capped`;

/**
 * The state columns of device `d` (d.id, d.cohort_id): the cohort's parts come from `cohort_state`,
 * read once per cohort of the batch (a batch of one cohort's devices reads its releases once).
 * `cohort_state` is materialized because of that: inlined, PostgreSQL joins it as a subquery
 * whose three subplans run again for every device of the batch. The device's penalty box rows
 * are read only when someone of its cohort rests (the CASE skips the subplan otherwise), so a
 * fleet without failures pays one probe of an empty partial index per cohort of the batch.
 * Likewise its cap slots only when its cohort has a capped release (releases_cohort_capped).
 * A device outside any cohort has no chain: its cohort parts answer null.
 */
const STATE_COLUMNS = `c.chain_version, c.device_count, c.phased,
    (select json_agg(release_id) from phase_claims where device_id = d.id),
    (select json_agg(bundle_override_id) from bundle_override_devices where device_id = d.id),
    case when c.resting then (select json_agg(json_build_object('r', release_id, 'u', rest_until)) from penalty_box where device_id = d.id and rest_until is not null) end,
    c.capped,
    case when c.capped is not null then (select json_agg(release_id) from update_slots where device_id = d.id and expires_at > now()) end`;

const STATE_BATCH = `with d as materialized (
    select k.id, k.cohort_id, k.ord from ${unnestParameters(1, ['uuid', 'uuid'])} with ordinality as k(id, cohort_id, ord)
  ),
  cohort_state as materialized (${COHORT_STATE} from (select distinct cohort_id from d where cohort_id is not null) x)
  select d.ord::int, ${STATE_COLUMNS}
  from d left join cohort_state c on c.cohort_id = d.cohort_id`;

/** The device fields an update check reads (CheckDevice), then the state columns. */
const DEVICE_COLUMNS = 'd.id, d.organization_id, d.cohort_id, d.quarantined, d.tags, d.target, d.reported_release_prn, d.reported_bundle_prn, d.reported_release_version';
const DEVICE_WITH_STATE_BATCH = `with d as materialized (
    select k.ord, ${DEVICE_COLUMNS}
    from ${unnestParameters(1, ['uuid', 'uuid'])} with ordinality as k(id, organization_id, ord)
    join devices d on d.id = k.id and d.organization_id = k.organization_id
  ),
  cohort_state as materialized (${COHORT_STATE} from (select distinct cohort_id from d where cohort_id is not null) x)
  select d.ord::int, ${DEVICE_COLUMNS}, ${STATE_COLUMNS}
  from d left join cohort_state c on c.cohort_id = d.cohort_id`;
const DEVICE_COLUMN_COUNT = 9;

/** What an update check needs of a device (the device API passes its whole row). */
export type CheckDevice = Pick<
  DeviceRow,
  'id' | 'organizationId' | 'cohortId' | 'quarantined' | 'tags' | 'target' | 'reportedReleasePrn' | 'reportedBundlePrn' | 'reportedReleaseVersion'
>;

type StateCells = [
  number | null, number | string | null, { id: string; claims: number }[] | null, string[] | null, string[] | null, { r: string; u: string }[] | null,
  string[] | null, string[] | null,
];

const NOBODY_RESTING: Map<string, number> = new Map();
const NO_CAPS: string[] = [];
const NO_SLOTS: Set<string> = new Set();

function stateOf([chainVersion, cohortDeviceCount, phased, claimed, overrides, resting, capped, slots]: StateCells): CheckState {
  return {
    chainVersion: chainVersion === null ? null : Number(chainVersion),
    cohortDeviceCount: Number(cohortDeviceCount ?? 0),
    claimCounts: new Map((phased ?? []).map((p) => [p.id, p.claims])),
    claimedReleaseIds: new Set(claimed ?? []),
    overrideIds: overrides ?? [],
    restUntil: resting === null ? NOBODY_RESTING : new Map(resting.map((row) => [row.r, Date.parse(row.u)])),
    cappedIds: capped ?? NO_CAPS,
    slotsHeld: slots === null ? NO_SLOTS : new Set(slots),
  };
}

/**
 * Batches in flight per process and reads per batch: enough to overlap round trips, small arrays.
 * While a batch is out, another leaves with at least 8 reads (db/statement-groups.ts): under load
 * the fixed cost of a statement is then shared by 8 or more checks, never by 1 or 2.
 */
const BATCHING = { maxInFlight: 4, maxGroup: 128, minGroupWhenBusy: 8 };

/** Runs a batch statement; answers each key's row (without its `ord`) or null, in key order. */
async function readBatch(db: Executor, name: string, text: string, keys: readonly [string, string | null][]): Promise<(unknown[] | null)[]> {
  const rows = await queryArrayRows(db, name, text, parameterArrays(['uuid', 'uuid'], [keys.map((k) => k[0]), keys.map((k) => k[1])]));
  const byOrd: (unknown[] | null)[] = keys.map(() => null);
  for (const row of rows) byOrd[Number(row[0]) - 1] = row.slice(1);
  return byOrd;
}

interface Reader<Key> {
  submit(key: Key): Promise<unknown[] | null>;
}
interface Batches {
  state: Reader<[string, string | null]>;
  deviceWithState: Reader<[string, string]>;
}
const batchesByExecutor = new WeakMap<object, Batches>();

/** Inside a caller's transaction each read runs alone on it, unbatched. */
function transactionReads(tx: Executor): Batches {
  const alone = (name: string, text: string) => ({ submit: async (key: [string, string | null]) => (await readBatch(tx, name, text, [key]))[0] });
  return { state: alone('release_check_state', STATE_BATCH), deviceWithState: alone('release_device_check_state', DEVICE_WITH_STATE_BATCH) };
}

/** The handle's batches; inside a caller's transaction each read runs alone on it, unbatched. */
function batchesOf(db: Executor): Batches {
  if ('rollback' in db) return transactionReads(db);
  // Inside a request scope (db/request-scope.ts) its own batches: a batch runs on one connection.
  const key = batchKey(db);
  let batches = batchesByExecutor.get(key);
  if (!batches) {
    batches = {
      state: new StatementGroups((keys: readonly [string, string | null][]) => readBatch(db, 'release_check_state', STATE_BATCH, keys), BATCHING),
      deviceWithState: new StatementGroups((keys: readonly [string, string | null][]) => readBatch(db, 'release_device_check_state', DEVICE_WITH_STATE_BATCH, keys), BATCHING),
    };
    batchesByExecutor.set(key, batches);
  }
  return batches;
}

export async function readCheckState(db: Executor, deviceId: string, cohortId: string | null): Promise<CheckState> {
  // A device outside any cohort has no chain: the cohort parts answer null for a null cohort.
  const row = await batchesOf(db).state.submit([deviceId, cohortId]);
  return stateOf(row as StateCells);
}

/** The device of the organization with its check state; null when there is no such device. */
export async function readDeviceWithCheckState(db: Executor, organizationId: string, deviceId: string): Promise<{ device: CheckDevice; state: CheckState } | null> {
  const row = await batchesOf(db).deviceWithState.submit([deviceId, organizationId]);
  if (!row) return null;
  const [id, orgId, cohortId, quarantined, tags, target, reportedReleasePrn, reportedBundlePrn, reportedReleaseVersion] = row as [
    string, string, string | null, boolean, string[] | null, string | null, string | null, string | null, string | null,
  ];
  const device: CheckDevice = { id, organizationId: orgId, cohortId, quarantined, tags, target, reportedReleasePrn, reportedBundlePrn, reportedReleaseVersion };
  return { device, state: stateOf(row.slice(DEVICE_COLUMN_COUNT) as StateCells) };
}
