/**
 * Loads what resolution needs for one device (resolution-types.ts): its cohort's chain (from
 * memory, checked against the cohort's stamp: chain-cache.ts), its overrides, its claims and
 * the cohort size, all fresh state in one round trip (check-state.ts). Bundle signing state is
 * asked lazily by `resolveWithLookups`, because resolution only ever asks about the one bundle
 * it chose and checking all 200 releases' bundles would waste the check.
 */
import { inArray } from 'drizzle-orm';
import { isBundleDistributableCached } from '../binaries/manifest';
import { bundleOverrides } from '../bundle-overrides/schema';
import type { Executor } from '../db/connection';
import { resourceIdFromPrn } from '../http/prn';
import { chainAt } from './chain-cache';
import type { ReleaseRow } from './chain-store';
import { readCheckState, type CheckDevice, type CheckState } from './check-state';
import type { DeviceOverride, PhaseClaimState, ResolutionInput, ResolutionResult } from './resolution-types';
import { resolveUpdate } from './resolution';

/** What the device says it runs: headers on the device API, the body on the admin API. */
export interface ReportedState {
  releasePrn?: string | null;
  bundlePrn?: string | null;
  releaseVersion?: string | null;
}

export type BundleOverrideRow = typeof bundleOverrides.$inferSelect;

export interface LoadedCheck {
  input: Omit<ResolutionInput, 'bundleSigned'>;
  /** First to latest, phased releases with their live claim counter. */
  chain: readonly ReleaseRow[];
  overrides: BundleOverrideRow[];
}

/**
 * Resolution answers a quarantined device or one outside any cohort before it looks at overrides,
 * the chain or claims (resolution.ts, api-contract.md section 5): such a device needs no state read.
 */
const NO_STATE: CheckState = { chainVersion: null, cohortDeviceCount: 0, claimCounts: new Map(), claimedReleaseIds: new Set(), overrideIds: [] };

function needsState(device: CheckDevice): boolean {
  return !device.quarantined && device.cohortId !== null;
}

/** `state`: the device's check state when the caller read it with the device (check-state.ts). */
export async function loadCheck(db: Executor, device: CheckDevice, reported: ReportedState, now: Date, state?: CheckState): Promise<LoadedCheck> {
  const org = device.organizationId;
  state ??= needsState(device) ? await readCheckState(db, device.id, device.cohortId) : NO_STATE;
  const cached = device.cohortId === null ? null : await chainAt(db, device.cohortId, state.chainVersion);
  // Most devices have no override: their rows are read only when there are some.
  const overrides = state.overrideIds.length === 0 ? [] : await db.select().from(bundleOverrides).where(inArray(bundleOverrides.id, state.overrideIds));
  const chain = (cached?.rows ?? []).map((row) => {
    const live = state.claimCounts.get(row.id);
    return live === undefined || live === row.phaseClaimCount ? row : { ...row, phaseClaimCount: live };
  });

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
    chain: cached?.releases ?? [],
    overrides: overrides.map((row): DeviceOverride => ({ id: row.id, bundleId: row.bundleId, startsAt: new Date(row.startsAt), endsAt: new Date(row.endsAt) })),
    phaseClaims: (releaseId): PhaseClaimState => ({
      deviceHasClaim: state.claimedReleaseIds.has(releaseId),
      claimCount: state.claimCounts.get(releaseId) ?? 0,
      cohortDeviceCount: state.cohortDeviceCount,
    }),
    now,
  };
  return { input, chain, overrides };
}

/**
 * Runs the pure resolution, answering its bundle questions from the database: a first run
 * assumes signed and notes which bundle it asked about; if that bundle is not distributable the
 * run is repeated knowing so. Resolution asks about one bundle per run, so this ends quickly.
 *
 * Target: a device that reports its `target` is asked about, and given (update-answers.ts), the
 * bundle's binaries for that target only, so a bundle built for several targets is
 * distributable to a device once its own target's binaries are all signed, and its manifest
 * lists one binary per artifact version. A device with no target gets every live binary, and the
 * bundle must be signed for all of them.
 */
export async function resolveWithLookups(db: Executor, input: Omit<ResolutionInput, 'bundleSigned'>, target: string | null): Promise<ResolutionResult> {
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
    for (const bundleId of unknown) known.set(bundleId, await isBundleDistributableCached(db, bundleId, target));
  }
}
