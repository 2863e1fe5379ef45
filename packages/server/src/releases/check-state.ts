/**
 * Everything an update check must read fresh about one device, in one round trip: its cohort's
 * chain stamp (chain-cache.ts), the cohort's size (kept by triggers, cohortDeviceCounts), the
 * live claim counter of the cohort's phased release, the device's claims and the ids of its
 * bundle overrides. Everything else (the chain itself) comes from memory.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { bundleOverrideDevices } from '../bundle-overrides/schema';
import type { Executor } from '../db/connection';
import { devices } from '../devices/schema';
import type { DeviceRow } from './neighbours';
import { cohortDeviceCounts, phaseClaims, releaseChainVersions, releases } from './schema';

export interface CheckState {
  chainVersion: number | null;
  cohortDeviceCount: number;
  /** Claim counter of each phased release of the cohort (phase_value other than 1). */
  claimCounts: Map<string, number>;
  /** Releases the device holds a claim on. */
  claimedReleaseIds: Set<string>;
  overrideIds: string[];
}

interface Row {
  chain_version: number | null;
  cohort_device_count: number | string | null;
  phased: { id: string; claims: number }[] | null;
  claimed: string[] | null;
  overrides: string[] | null;
}

/**
 * Prepared once per executor (http/owned-rows.ts does the same): every check runs one of these,
 * and with placeholders PostgreSQL plans it once per connection instead of once per check.
 * Two forms: the state alone for a device already loaded (the device API authenticated it), and
 * the device row with its state for the admin API, which starts from a prn: one round trip.
 */
interface Prepared {
  execute(values: Record<string, unknown>): Promise<unknown>;
}
const preparedByExecutor = new WeakMap<object, { alone?: Prepared; withDevice?: Prepared }>();

/** The state's columns, for the device and cohort given as SQL (placeholders or the device row). */
function stateColumns(deviceId: SQL, cohortId: SQL) {
  return {
    chain_version: sql`(select ${releaseChainVersions.version} from ${releaseChainVersions} where ${releaseChainVersions.cohortId} = ${cohortId})`,
    cohort_device_count: sql`(select coalesce(sum(${cohortDeviceCounts.deviceCount}), 0) from ${cohortDeviceCounts} where ${cohortDeviceCounts.cohortId} = ${cohortId})`,
    phased: sql`(select json_agg(json_build_object('id', ${releases.id}, 'claims', ${releases.phaseClaimCount})) from ${releases}
      where ${releases.cohortId} = ${cohortId} and ${releases.phaseValue} is distinct from 1)`,
    claimed: sql`(select json_agg(${phaseClaims.releaseId}) from ${phaseClaims} where ${phaseClaims.deviceId} = ${deviceId})`,
    overrides: sql`(select json_agg(${bundleOverrideDevices.bundleOverrideId}) from ${bundleOverrideDevices} where ${bundleOverrideDevices.deviceId} = ${deviceId})`,
  };
}

function preparedFor(db: Executor) {
  let prepared = preparedByExecutor.get(db);
  if (!prepared) preparedByExecutor.set(db, (prepared = {}));
  return prepared;
}

function preparedCheckState(db: Executor): Prepared {
  const prepared = preparedFor(db);
  prepared.alone ??= db
    .select(stateColumns(sql`${sql.placeholder('deviceId')}::uuid`, sql`${sql.placeholder('cohortId')}::uuid`))
    .from(sql`(select 1) as one`)
    .prepare('release_check_state') as unknown as Prepared;
  return prepared.alone;
}

function preparedDeviceWithCheckState(db: Executor): Prepared {
  const prepared = preparedFor(db);
  prepared.withDevice ??= db
    .select({ device: devices, ...stateColumns(sql`${devices.id}`, sql`${devices.cohortId}`) })
    .from(devices)
    .where(and(eq(devices.id, sql.placeholder('deviceId')), eq(devices.organizationId, sql.placeholder('organizationId'))))
    .limit(1)
    .prepare('release_device_check_state') as unknown as Prepared;
  return prepared.withDevice;
}

function stateOf(row: Row): CheckState {
  return {
    chainVersion: row.chain_version === null ? null : Number(row.chain_version),
    cohortDeviceCount: Number(row.cohort_device_count ?? 0),
    claimCounts: new Map((row.phased ?? []).map((p) => [p.id, p.claims])),
    claimedReleaseIds: new Set(row.claimed ?? []),
    overrideIds: row.overrides ?? [],
  };
}

export async function readCheckState(db: Executor, deviceId: string, cohortId: string | null): Promise<CheckState> {
  // A device outside any cohort has no chain: the cohort parts answer null for a null cohort.
  const [row] = (await preparedCheckState(db).execute({ deviceId, cohortId })) as Row[];
  return stateOf(row);
}

/** The device of the organization with its check state; null when there is no such device. */
export async function readDeviceWithCheckState(db: Executor, organizationId: string, deviceId: string): Promise<{ device: DeviceRow; state: CheckState } | null> {
  const [row] = (await preparedDeviceWithCheckState(db).execute({ deviceId, organizationId })) as (Row & { device: DeviceRow })[];
  return row ? { device: row.device, state: stateOf(row) } : null;
}
