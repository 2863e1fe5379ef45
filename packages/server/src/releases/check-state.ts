/**
 * Everything an update check must read fresh about one device, in one round trip: its cohort's
 * chain stamp (chain-cache.ts), the cohort's size (kept by triggers, cohortDeviceCounts), the
 * live claim counter of the cohort's phased release, the device's claims and the ids of its
 * bundle overrides. Everything else (the chain itself) comes from memory.
 */
import { queryArrayRows } from '../db/array-rows';
import type { Executor } from '../db/connection';
import type { DeviceRow } from './neighbours';

export interface CheckState {
  chainVersion: number | null;
  cohortDeviceCount: number;
  /** Claim counter of each phased release of the cohort (phase_value other than 1). */
  claimCounts: Map<string, number>;
  /** Releases the device holds a claim on. */
  claimedReleaseIds: Set<string>;
  overrideIds: string[];
}

/**
 * Two named statements, each planned once per connection (db/array-rows.ts): the state alone for
 * a device already loaded (the device API authenticated it), and the device's fields an update
 * check uses with its state for the admin API, which starts from a prn: one round trip.
 */
function stateColumns(deviceId: string, cohortId: string): string {
  return `(select version from release_chain_versions where cohort_id = ${cohortId}),
    (select coalesce(sum(device_count), 0) from cohort_device_counts where cohort_id = ${cohortId}),
    (select json_agg(json_build_object('id', id, 'claims', phase_claim_count)) from releases where cohort_id = ${cohortId} and phase_value is distinct from 1),
    (select json_agg(release_id) from phase_claims where device_id = ${deviceId}),
    (select json_agg(bundle_override_id) from bundle_override_devices where device_id = ${deviceId})`;
}

const STATE_ALONE = `select ${stateColumns('$1::uuid', '$2::uuid')}`;

/** The device fields an update check reads (CheckDevice), then the state columns. */
const DEVICE_COLUMNS = 'd.id, d.organization_id, d.cohort_id, d.quarantined, d.tags, d.target, d.reported_release_prn, d.reported_bundle_prn, d.reported_release_version';
const DEVICE_WITH_STATE = `select ${DEVICE_COLUMNS}, ${stateColumns('d.id', 'd.cohort_id')}
  from devices d where d.id = $1::uuid and d.organization_id = $2::uuid`;
const DEVICE_COLUMN_COUNT = 9;

/** What an update check needs of a device (the device API passes its whole row). */
export type CheckDevice = Pick<
  DeviceRow,
  'id' | 'organizationId' | 'cohortId' | 'quarantined' | 'tags' | 'target' | 'reportedReleasePrn' | 'reportedBundlePrn' | 'reportedReleaseVersion'
>;

type StateCells = [number | null, number | string | null, { id: string; claims: number }[] | null, string[] | null, string[] | null];

function stateOf([chainVersion, cohortDeviceCount, phased, claimed, overrides]: StateCells): CheckState {
  return {
    chainVersion: chainVersion === null ? null : Number(chainVersion),
    cohortDeviceCount: Number(cohortDeviceCount ?? 0),
    claimCounts: new Map((phased ?? []).map((p) => [p.id, p.claims])),
    claimedReleaseIds: new Set(claimed ?? []),
    overrideIds: overrides ?? [],
  };
}

export async function readCheckState(db: Executor, deviceId: string, cohortId: string | null): Promise<CheckState> {
  // A device outside any cohort has no chain: the cohort parts answer null for a null cohort.
  const [row] = await queryArrayRows(db, 'release_check_state', STATE_ALONE, [deviceId, cohortId]);
  return stateOf(row as StateCells);
}

/** The device of the organization with its check state; null when there is no such device. */
export async function readDeviceWithCheckState(db: Executor, organizationId: string, deviceId: string): Promise<{ device: CheckDevice; state: CheckState } | null> {
  const [row] = await queryArrayRows(db, 'release_device_check_state', DEVICE_WITH_STATE, [deviceId, organizationId]);
  if (!row) return null;
  const [id, orgId, cohortId, quarantined, tags, target, reportedReleasePrn, reportedBundlePrn, reportedReleaseVersion] = row as [
    string, string, string | null, boolean, string[] | null, string | null, string | null, string | null, string | null,
  ];
  const device: CheckDevice = { id, organizationId: orgId, cohortId, quarantined, tags, target, reportedReleasePrn, reportedBundlePrn, reportedReleaseVersion };
  return { device, state: stateOf(row.slice(DEVICE_COLUMN_COUNT) as StateCells) };
}
