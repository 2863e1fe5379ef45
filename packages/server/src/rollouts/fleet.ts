/**
 * The fleet-wide "why not": what the update check would answer each device of a cohort now,
 * summed for one release of the chain. Each device goes through the update check's own
 * resolution (updates/core/resolution.ts, with its bundle signing lookups: updates/inputs.ts),
 * not a second implementation; this file only loads the cohort's devices in bulk, grouped by
 * their resolution inputs (DeviceGroup below), and reads each answer's explanation to say why
 * the release is not the one a device gets.
 *
 * Read-only. Each device is resolved on its stored state (reported release, bundle and version,
 * as its last check wrote them), like `GET /devices/{prn}/update/explain` without a query.
 *
 * Capacity: a numeric phase is evaluated as if the device held a slot, so `eligible` counts the
 * devices the release suits whatever the phase's size; `would_claim` then applies the phase
 * (the devices already holding a slot, plus as many others as there are free slots).
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import type { ReleaseRow } from '../releases/chain-store';
import { toChainRelease } from '../updates/chain-cache';
import { cohortWindowsOf } from './windows';
import { insideWindows } from '../updates/core/window-rule';
import { isPhased, phaseSlots } from '../updates/core/phase';
import type { ChainRelease, DeviceOverride, ExplainStep, ResolutionResult } from '../updates/core/resolution-types';
import { resolveWithLookups } from '../updates/inputs';
import { resourceIdFromPrn } from '../core/prn';
import { rowsOf } from './counts';

export const NOT_ELIGIBLE_REASONS = [
  'quarantined',
  'version_requirement',
  'phase_tags',
  'required_release_first',
  'bundle_override',
  'target',
  'release_disabled',
  'release_paused',
  'release_cancelled',
  'scheduled',
  'outside_maintenance_window',
  'already_on_or_past',
  'passed_over',
] as const;
export type NotEligibleReason = (typeof NOT_ELIGIBLE_REASONS)[number];

export interface FleetEvaluation {
  cohortDevices: number;
  eligible: number;
  wouldClaim: number;
  notEligible: Record<NotEligibleReason, number>;
}

/**
 * Devices of the cohort whose resolution inputs are equal, with their number: resolution reads a
 * device's quarantine, tags, reported release, bundle and version, its target (bundle signing),
 * its bundle overrides and whether it holds a slot of the release, and nothing else of it (not
 * its id), so devices equal in all of these get the same answer and are resolved once. A device
 * with a bundle override is a group of its own (`device_id` set), its overrides read by it.
 * A 100,000-device cohort is then one grouped read in PostgreSQL and a few resolutions here.
 */
interface DeviceGroup {
  device_id: string | null;
  quarantined: boolean;
  tags: string[] | null;
  target: string | null;
  reported_release_prn: string | null;
  reported_bundle_prn: string | null;
  reported_release_version: string | null;
  has_claim: boolean;
  devices: number | string;
}

interface OverrideRow {
  device_id: string;
  id: string;
  bundle_id: string;
  starts_at: string | Date;
  ends_at: string | Date;
}

async function loadCohort(db: Executor, cohortId: string, releaseId: string) {
  const groups = await rowsOf<DeviceGroup>(
    db.execute(sql`
      select case when exists (select 1 from bundle_override_devices od where od.device_id = d.id) then d.id end as device_id,
        d.quarantined, d.tags, d.target, d.reported_release_prn, d.reported_bundle_prn, d.reported_release_version,
        c.device_id is not null as has_claim, count(*) as devices
      from devices d left join phase_claims c on c.release_id = ${releaseId} and c.device_id = d.id
      where d.cohort_id = ${cohortId}
      group by 1, 2, 3, 4, 5, 6, 7, 8`),
  );
  const overrides = await rowsOf<OverrideRow>(
    db.execute(sql`
      select od.device_id, o.id, o.bundle_id, o.starts_at, o.ends_at
      from bundle_override_devices od join bundle_overrides o on o.id = od.bundle_override_id
      join devices d on d.id = od.device_id where d.cohort_id = ${cohortId}`),
  );
  const overridesByDevice = new Map<string, DeviceOverride[]>();
  for (const row of overrides) {
    const list = overridesByDevice.get(row.device_id) ?? [];
    list.push({ id: row.id, bundleId: row.bundle_id, startsAt: new Date(row.starts_at), endsAt: new Date(row.ends_at) });
    overridesByDevice.set(row.device_id, list);
  }
  return { groups, overridesByDevice };
}

const onRelease = (step: ExplainStep, releaseId: string) => step.subject?.type === 'release' && step.subject.id === releaseId;

/** Why `result` is not release `index` of `chain` (null: it is). */
export function whyNot(result: ResolutionResult, chain: readonly ChainRelease[], index: number): NotEligibleReason | null {
  const releaseId = chain[index].id;
  if (result.status === 'device_quarantine') return 'quarantined';
  if (result.releaseId === releaseId) return null;
  const steps = result.explanation;
  if (steps.some((step) => step.step === 'override' && step.outcome === 'taken')) return 'bundle_override';
  const indexOf = (step: ExplainStep) => (step.subject ? chain.findIndex((release) => release.id === step.subject!.id) : -1);
  const position = steps.find((step) => step.step === 'position' && step.outcome === 'taken');
  if (position) {
    const at = indexOf(position);
    // A release or bundle position starts the walk after it; a version position at it.
    if (position.reason === 'version_header' ? at > index : at >= index) return 'already_on_or_past';
  }
  const backward = steps.find((step) => step.step === 'walk_backward' && onRelease(step, releaseId));
  switch (backward?.reason) {
    case 'requirement_not_met':
      return 'version_requirement';
    case 'not_in_phase_tags':
      return 'phase_tags';
    case 'disabled':
      return 'release_disabled';
    case 'paused':
      return 'release_paused';
    case 'cancelled':
      return 'release_cancelled';
    case 'scheduled':
      return 'scheduled';
    case 'outside_maintenance_window':
      return 'outside_maintenance_window';
  }
  if (steps.some((step) => step.step === 'bundle_signed' && step.reason === 'unsigned_binaries' && onRelease(step, releaseId))) return 'target';
  if (steps.some((step) => step.step === 'already_current' && step.reason === 'already_current' && onRelease(step, releaseId))) return 'already_on_or_past';
  const stop = steps.find((step) => step.step === 'walk_forward' && step.outcome === 'taken' && step.reason === 'required_release');
  if (stop && indexOf(stop) < index) return 'required_release_first';
  return 'passed_over';
}

/**
 * Evaluates release `chain[index]` against every device of `cohortId` now. `chain` is the
 * cohort's chain, first to latest (for a dry run, the chain with the proposed release in it).
 */
export async function evaluateFleet(
  db: Executor,
  organizationId: string,
  cohortId: string,
  chainRows: readonly ReleaseRow[],
  index: number,
  now = new Date(),
): Promise<FleetEvaluation> {
  const cohortWindows = await cohortWindowsOf(db, cohortId);
  const chain = chainRows.map((row) => toChainRelease(row, cohortWindows));
  const chainIndex = new Map(chain.map((release, i) => [release.id, i]));
  const release = chain[index];
  const { groups, overridesByDevice } = await loadCohort(db, cohortId, release.id);
  const cohortDevices = groups.reduce((sum, group) => sum + Number(group.devices), 0);
  const numericPhase = isPhased(release) && release.phaseMode === 'numeric';
  // Outside its windows, as paused: only devices already holding a slot count (resolution.ts).
  const windowOpen = insideWindows(release.maintenanceWindows, now.getTime());
  const notEligible = Object.fromEntries(NOT_ELIGIBLE_REASONS.map((reason) => [reason, 0])) as Record<NotEligibleReason, number>;
  let eligible = 0;
  let eligibleHolding = 0;
  let done = 0;
  for (const group of groups) {
    // Resolution is synchronous work: give the event loop back every 1,000 groups, so a cohort
    // of many different devices does not stall every other request of the server meanwhile.
    if (++done % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
    const devices = Number(group.devices);
    const result = await resolveWithLookups(
      db,
      {
        device: {
          id: group.device_id ?? '',
          quarantined: group.quarantined,
          cohortId,
          tags: group.tags,
          reportedReleaseId: resourceIdFromPrn(group.reported_release_prn, 'release', organizationId),
          reportedBundleId: resourceIdFromPrn(group.reported_bundle_prn, 'bundle', organizationId),
        },
        headers: { releaseVersion: group.reported_release_version },
        chain,
        chainIndex,
        overrides: group.device_id === null ? [] : (overridesByDevice.get(group.device_id) ?? []),
        // Capacity aside (see above): a numeric phase answers as if the device held a slot,
        // unless paused (then only the slots really held are still offered).
        phaseClaims: (id) => ({ deviceHasClaim: group.has_claim || (numericPhase && id === release.id && !release.paused && windowOpen), claimCount: 0, cohortDeviceCount: cohortDevices }),
        now,
      },
      group.target,
    );
    const reason = whyNot(result, chain, index);
    if (reason === null) {
      eligible += devices;
      if (group.has_claim) eligibleHolding += devices;
    } else notEligible[reason] += devices;
  }
  const freeSlots = numericPhase ? Math.max(0, phaseSlots(release.phaseValue, cohortDevices) - chainRows[index].phaseClaimCount) : Number.POSITIVE_INFINITY;
  const wouldClaim = numericPhase ? eligibleHolding + Math.min(eligible - eligibleHolding, freeSlots) : eligible;
  return { cohortDevices, eligible, wouldClaim, notEligible };
}
