/**
 * Everything an update check must read fresh about one device, in one round trip: its cohort's
 * chain stamp (chain-cache.ts), the cohort's size (kept by triggers, cohortDeviceCounts), the
 * live claim counter of the cohort's phased release, the device's claims and the ids of its
 * bundle overrides. Everything else (the chain itself) comes from memory.
 */
import { sql } from 'drizzle-orm';
import { bundleOverrideDevices } from '../bundle-overrides/schema';
import type { Executor } from '../db/connection';
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
 * Prepared once per executor (http/owned-rows.ts does the same): every check runs this query, and
 * with placeholders PostgreSQL plans it once per connection instead of once per check.
 */
interface Prepared {
  execute(values: Record<string, unknown>): Promise<unknown>;
}
const preparedByExecutor = new WeakMap<object, Prepared>();

function preparedCheckState(db: Executor): Prepared {
  let query = preparedByExecutor.get(db);
  if (!query) {
    const cohortId = sql`${sql.placeholder('cohortId')}::uuid`;
    const deviceId = sql`${sql.placeholder('deviceId')}::uuid`;
    query = db
      .select({
        chain_version: sql`(select ${releaseChainVersions.version} from ${releaseChainVersions} where ${releaseChainVersions.cohortId} = ${cohortId})`,
        cohort_device_count: sql`(select coalesce(sum(${cohortDeviceCounts.deviceCount}), 0) from ${cohortDeviceCounts} where ${cohortDeviceCounts.cohortId} = ${cohortId})`,
        phased: sql`(select json_agg(json_build_object('id', ${releases.id}, 'claims', ${releases.phaseClaimCount})) from ${releases}
          where ${releases.cohortId} = ${cohortId} and ${releases.phaseValue} is distinct from 1)`,
        claimed: sql`(select json_agg(${phaseClaims.releaseId}) from ${phaseClaims} where ${phaseClaims.deviceId} = ${deviceId})`,
        overrides: sql`(select json_agg(${bundleOverrideDevices.bundleOverrideId}) from ${bundleOverrideDevices} where ${bundleOverrideDevices.deviceId} = ${deviceId})`,
      })
      .from(sql`(select 1) as one`)
      .prepare('release_check_state') as unknown as Prepared;
    preparedByExecutor.set(db, query);
  }
  return query;
}

export async function readCheckState(db: Executor, deviceId: string, cohortId: string | null): Promise<CheckState> {
  // A device outside any cohort has no chain: the cohort parts answer null for a null cohort.
  const [row] = (await preparedCheckState(db).execute({ deviceId, cohortId })) as Row[];
  return {
    chainVersion: row.chain_version === null ? null : Number(row.chain_version),
    cohortDeviceCount: Number(row.cohort_device_count ?? 0),
    claimCounts: new Map((row.phased ?? []).map((p) => [p.id, p.claims])),
    claimedReleaseIds: new Set(row.claimed ?? []),
    overrideIds: row.overrides ?? [],
  };
}
