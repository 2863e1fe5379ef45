/**
 * Loads what resolution needs for one device (resolution-types.ts): its cohort's chain (from
 * memory, checked against the cohort's stamp, shared and never copied per check: chain-cache.ts),
 * its overrides, its claims and the cohort size, all fresh state in one round trip
 * (check-state.ts). Bundle signing state is asked lazily by `resolveWithLookups`, because
 * resolution only ever asks about the one bundle it chose and checking all 200 releases' bundles
 * would waste the check.
 */
import { inArray } from 'drizzle-orm';
import { isBundleDistributableCached } from '../binaries/manifest';
import { bundleOverrides } from '../bundle-overrides/schema';
import { endAsDate } from '../bundle-overrides/windows';
import type { Executor } from '../db/connection';
import { resourceIdFromPrn } from '../core/prn';
import { chainAt, chainInMemory, type CachedChain } from './chain-cache';
import { readCheckState, type CheckDevice, type CheckState } from './check-state';
import type { ChainRelease, DeviceOverride, PhaseClaimState, ResolutionInput, ResolutionResult } from './core/resolution-types';
import { resolveUpdate } from './core/resolution';
import { slotsInUseCached } from './slot-claims';
import type { ReleaseWithPrevious } from '../releases/wire';

/** What the device says it runs: headers on the device API, the body on the admin API. */
export interface ReportedState {
  releasePrn?: string | null;
  bundlePrn?: string | null;
  releaseVersion?: string | null;
}

/**
 * What the device reports, as the check uses and stores it: a release or bundle prn that is not
 * of the device's organization is unknown, as if the header were not sent. So nothing another
 * organization counts (rollout progress counts devices by reported release prn) or names moves
 * when a device reports its prn.
 */
export function ownReportedState(organizationId: string, reported: ReportedState): ReportedState {
  const { releasePrn, bundlePrn } = reported;
  return {
    releasePrn: releasePrn && resourceIdFromPrn(releasePrn, 'release', organizationId) ? releasePrn : null,
    bundlePrn: bundlePrn && resourceIdFromPrn(bundlePrn, 'bundle', organizationId) ? bundlePrn : null,
    releaseVersion: reported.releaseVersion ?? null,
  };
}

export type BundleOverrideRow = typeof bundleOverrides.$inferSelect;

export interface LoadedCheck {
  input: Omit<ResolutionInput, 'bundleSigned'>;
  /** A release of the chain with its live claim counter and its predecessor; null when not in it. */
  releaseRow(releaseId: string): ReleaseWithPrevious | null;
  overrides: BundleOverrideRow[];
}

const NO_CHAIN: CachedChain = { version: null, rows: [], releases: [], indexById: new Map() };

/** The release `releaseId` of the input's chain, found through the chain's index. */
export function chainRelease(input: Pick<ResolutionInput, 'chain' | 'chainIndex'>, releaseId: string): ChainRelease | undefined {
  const index = input.chainIndex?.get(releaseId);
  return index === undefined ? input.chain.find((release) => release.id === releaseId) : input.chain[index];
}

/**
 * The stored row of a release with the live counter (the chain's rows keep the one read when it
 * was loaded) and its predecessor: built for the one release an answer shows, never for the chain.
 */
function releaseRowOf(chain: CachedChain, state: CheckState, releaseId: string): ReleaseWithPrevious | null {
  const index = chain.indexById.get(releaseId);
  if (index === undefined) return null;
  const row = chain.rows[index];
  const live = state.claimCounts.get(row.id);
  return { ...row, phaseClaimCount: live ?? row.phaseClaimCount, previousReleaseId: index === 0 ? null : chain.rows[index - 1].id };
}

/**
 * Resolution answers a quarantined device or one outside any cohort before it looks at overrides,
 * the chain or claims (core/resolution.ts): such a device needs no state read.
 */
const NO_STATE: CheckState = { chainVersion: null, cohortDeviceCount: 0, claimCounts: new Map(), claimedReleaseIds: new Set(), overrideIds: [], restUntil: new Map(), cappedIds: [], slotsHeld: new Set() };

function needsState(device: CheckDevice): boolean {
  return !device.quarantined && device.cohortId !== null;
}

/** `state`: the device's check state when the caller read it with the device (check-state.ts). */
export async function loadCheck(db: Executor, device: CheckDevice, reported: ReportedState, now: Date, state?: CheckState, retryBaseSeconds?: number): Promise<LoadedCheck> {
  const org = device.organizationId;
  state ??= needsState(device) ? await readCheckState(db, device.id, device.cohortId) : NO_STATE;
  // The chain is shared by every check of the cohort at this stamp (chain-cache.ts): not copied here.
  const cohortId = device.cohortId;
  const chain = cohortId === null ? NO_CHAIN : (chainInMemory(db, cohortId, state.chainVersion) ?? (await chainAt(db, cohortId, state.chainVersion)));
  // Most devices have no override: their rows are read only when there are some.
  const overrides = state.overrideIds.length === 0 ? [] : await db.select().from(bundleOverrides).where(inArray(bundleOverrides.id, state.overrideIds));
  // A capped release's places in use, for a device not holding one: a short-lived shared count (slot-claims.ts).
  const slotsUsed = new Map<string, number>();
  for (const releaseId of state.cappedIds) if (!state.slotsHeld.has(releaseId)) slotsUsed.set(releaseId, await slotsInUseCached(db, releaseId));

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
    chain: chain.releases,
    chainIndex: chain.indexById,
    overrides: overrides.map((row): DeviceOverride => ({ id: row.id, bundleId: row.bundleId, startsAt: new Date(row.startsAt), endsAt: endAsDate(row.endsAt) })),
    phaseClaims: (releaseId): PhaseClaimState => ({
      deviceHasClaim: state.claimedReleaseIds.has(releaseId),
      claimCount: state.claimCounts.get(releaseId) ?? 0,
      cohortDeviceCount: state.cohortDeviceCount,
    }),
    restUntil: state.restUntil,
    slots: (releaseId) => ({ held: state.slotsHeld.has(releaseId), used: slotsUsed.get(releaseId) ?? 0 }),
    retryBaseSeconds,
    now,
  };
  return { input, releaseRow: (releaseId) => releaseRowOf(chain, state, releaseId), overrides };
}

/**
 * Runs the pure resolution, answering its bundle questions from the database: a first run
 * assumes signed and notes which bundle it asked about; if that bundle is not distributable the
 * run is repeated knowing so. Resolution asks about one bundle per run, so this ends quickly.
 *
 * Target: a device that reports its `target` is asked about, and given (answers.ts), the
 * bundle's binaries for that target only, so a bundle built for several targets is
 * distributable to a device once its own target's binaries are all signed, and its manifest
 * lists one binary per artifact version. A device with no target gets every live binary, and the
 * bundle must be signed for all of them.
 */
export async function resolveWithLookups(db: Executor, input: Omit<ResolutionInput, 'bundleSigned'>, target: string | null): Promise<ResolutionResult> {
  const known = new Map<string, boolean>();
  for (;;) {
    const unknown: string[] = [];
    const bundleSigned = (bundleId: string) => {
      const answer = known.get(bundleId);
      if (answer !== undefined) return answer;
      unknown.push(bundleId);
      return true;
    };
    // Field by field, not `{ ...input, bundleSigned }`: objects made by that spread missed
    // resolution's property caches on every check (V8's slow path, measured under load).
    const { device, headers, chain, chainIndex, overrides, phaseClaims, restUntil, slots, retryBaseSeconds, now } = input;
    const result = resolveUpdate({ device, headers, chain, chainIndex, overrides, phaseClaims, restUntil, slots, retryBaseSeconds, now, bundleSigned });
    if (unknown.length === 0) return result;
    for (const bundleId of unknown) known.set(bundleId, await isBundleDistributableCached(db, bundleId, target));
  }
}
