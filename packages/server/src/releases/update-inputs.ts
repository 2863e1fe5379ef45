/**
 * Loads what resolution needs for one device (resolution-types.ts) from the database: its
 * cohort's chain, its overrides, its claims and the cohort size. Bundle signing state is asked
 * lazily by `resolveWithLookups`, because resolution only ever asks about the one bundle it
 * chose and checking all 200 releases' bundles would waste the check.
 */
import { eq, getTableColumns } from 'drizzle-orm';
import { bundleOverrideDevices, bundleOverrides } from '../bundle-overrides/schema';
import type { Executor } from '../db/connection';
import { resourceIdFromPrn } from '../http/prn';
import { validateChain } from './chain';
import type { ReleaseRow } from './chain-store';
import type { DeviceRow } from './neighbours';
import { isPhased } from './phase';
import { cachedCohortDeviceCount, claimedReleaseIds } from './phase-claims';
import type { ChainRelease, DeviceOverride, PhaseClaimState, ResolutionInput, ResolutionResult } from './resolution-types';
import { resolveUpdate } from './resolution';
import { releases } from './schema';
import { isBundleDistributable } from './bundle-delivery';

/** What the device says it runs: headers on the device API, the body on the admin API. */
export interface ReportedState {
  releasePrn?: string | null;
  bundlePrn?: string | null;
  releaseVersion?: string | null;
}

export type BundleOverrideRow = typeof bundleOverrides.$inferSelect;

export interface LoadedCheck {
  input: Omit<ResolutionInput, 'bundleSigned'>;
  chain: ReleaseRow[];
  overrides: BundleOverrideRow[];
}

function toChainRelease(row: ReleaseRow): ChainRelease {
  return {
    id: row.id,
    bundleId: row.bundleId,
    required: row.required,
    disabled: row.disabled,
    scheduleDate: row.scheduleDate === null ? null : new Date(row.scheduleDate),
    versionRequirement: row.versionRequirement,
    version: row.version,
    phaseMode: row.phaseMode,
    phaseValue: row.phaseValue,
    phaseTags: row.phaseTags,
  };
}

/** The chain first to latest; a chain that does not validate is treated as empty (never offered). */
async function loadOrderedChain(db: Executor, cohortId: string): Promise<ReleaseRow[]> {
  const rows = await db.select().from(releases).where(eq(releases.cohortId, cohortId));
  const validation = validateChain(rows.map((row) => ({ id: row.id, nextReleaseId: row.nextReleaseId })));
  if (!validation.ok) return [];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return validation.order.map((id) => byId.get(id)!);
}

async function loadOverrides(db: Executor, deviceId: string): Promise<BundleOverrideRow[]> {
  return db
    .select(getTableColumns(bundleOverrides))
    .from(bundleOverrideDevices)
    .innerJoin(bundleOverrides, eq(bundleOverrides.id, bundleOverrideDevices.bundleOverrideId))
    .where(eq(bundleOverrideDevices.deviceId, deviceId));
}

export async function loadCheck(db: Executor, device: DeviceRow, reported: ReportedState, now: Date): Promise<LoadedCheck> {
  const org = device.organizationId;
  const chain = device.cohortId === null ? [] : await loadOrderedChain(db, device.cohortId);
  const overrides = await loadOverrides(db, device.id);
  const phased = chain.filter((row) => isPhased(row));
  const claimed = await claimedReleaseIds(db, device.id, phased.map((row) => row.id));
  const needsSize = phased.some((row) => row.phaseMode === 'numeric' && row.phaseValue !== null && row.phaseValue < 1);
  const cohortDeviceCount = needsSize && device.cohortId !== null ? await cachedCohortDeviceCount(db, device.cohortId) : 0;
  const claimCounts = new Map(chain.map((row) => [row.id, row.phaseClaimCount]));

  const input: LoadedCheck['input'] = {
    device: {
      id: device.id,
      quarantined: device.quarantined,
      cohortId: device.cohortId,
      tags: device.tags,
      reportedReleaseId: resourceIdFromPrn(device.reportedReleasePrn, 'release', org),
      reportedBundleId: resourceIdFromPrn(device.reportedBundlePrn, 'bundle', org),
    },
    headers: {
      releaseId: reported.releasePrn ? resourceIdFromPrn(reported.releasePrn, 'release', org) : null,
      bundleId: reported.bundlePrn ? resourceIdFromPrn(reported.bundlePrn, 'bundle', org) : null,
      releaseVersion: reported.releaseVersion ?? null,
    },
    chain: chain.map(toChainRelease),
    overrides: overrides.map((row): DeviceOverride => ({ id: row.id, bundleId: row.bundleId, startsAt: new Date(row.startsAt), endsAt: new Date(row.endsAt) })),
    phaseClaims: (releaseId): PhaseClaimState => ({ deviceHasClaim: claimed.has(releaseId), claimCount: claimCounts.get(releaseId) ?? 0, cohortDeviceCount }),
    now,
  };
  return { input, chain, overrides };
}

/**
 * Runs the pure resolution, answering its bundle questions from the database: a first run
 * assumes signed and notes which bundle it asked about; if that bundle is not distributable the
 * run is repeated knowing so. Resolution asks about one bundle per run, so this ends quickly.
 */
export async function resolveWithLookups(db: Executor, input: Omit<ResolutionInput, 'bundleSigned'>): Promise<ResolutionResult> {
  const known = new Map<string, boolean>();
  for (;;) {
    const unknown: string[] = [];
    const result = resolveUpdate({
      ...input,
      bundleSigned: (bundleId) => {
        const answer = known.get(bundleId);
        if (answer !== undefined) return answer;
        unknown.push(bundleId);
        return true;
      },
    });
    if (unknown.length === 0) return result;
    for (const bundleId of unknown) known.set(bundleId, await isBundleDistributable(db, bundleId));
  }
}
