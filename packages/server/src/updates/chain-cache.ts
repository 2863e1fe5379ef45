/**
 * Each cohort's chain, ordered first to latest, kept in memory per database handle and reloaded
 * only when the cohort's chain stamp (release_chain_versions, bumped by every chain edit in the
 * edit's transaction) differs from the one it was loaded at. The caller reads the stamp in the
 * same round trip as the device's other state (check-state.ts), so a check never uses a chain
 * older than the last edit committed before it started, and a 200-release chain costs one read
 * per edit instead of one per check.
 *
 * One CachedChain is shared by every check of the cohort until the stamp moves: never mutate it.
 * Its rows' phase_claim_count is the one read at load time; a check reads the live counter with
 * its state (check-state.ts) and overlays it only on the row it answers with (inputs.ts).
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { validateChain } from '../releases/chain';
import type { ReleaseRow } from '../releases/chain-store';
import type { ChainRelease } from './core/resolution-types';
import { releases } from '../releases/schema';
import { cohortWindowsOf } from '../rollouts/windows';
import type { MaintenanceWindow } from './core/window-rule';

export interface CachedChain {
  /** The stamp this chain was loaded at (null: the cohort's chain was never edited). */
  version: number | null;
  rows: readonly ReleaseRow[];
  releases: readonly ChainRelease[];
  /** Each release's index in `rows` and `releases`, so a check finds one without a scan. */
  indexById: ReadonlyMap<string, number>;
}

/** Cohorts kept per database handle; beyond this the cache starts over (a bound, not an LRU). */
const MAX_COHORTS = 10_000;
const caches = new WeakMap<object, Map<string, CachedChain>>();

export function toChainRelease(row: ReleaseRow, cohortWindows: MaintenanceWindow[] | null = null): ChainRelease {
  return {
    id: row.id,
    bundleId: row.bundleId,
    required: row.required,
    disabled: row.disabled,
    paused: row.pausedAt !== null,
    cancelled: row.cancelledAt !== null,
    scheduleDate: row.scheduleDate === null ? null : new Date(row.scheduleDate),
    versionRequirement: row.versionRequirement,
    version: row.version,
    phaseMode: row.phaseMode,
    phaseValue: row.phaseValue,
    phaseTags: row.phaseTags,
    maintenanceWindows: row.maintenanceWindows ?? cohortWindows,
    maxConcurrent: row.maxConcurrent ?? null,
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

function cacheOf(db: Executor): Map<string, CachedChain> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  return cache;
}

/** The cohort's chain as of `version` when this process holds it (no wait), else null. */
export function chainInMemory(db: Executor, cohortId: string, version: number | null): CachedChain | null {
  const hit = cacheOf(db).get(cohortId);
  return hit !== undefined && hit.version === version ? hit : null;
}

/** The cohort's chain as of `version`; `db` also keys the cache (one per server instance). */
export async function chainAt(db: Executor, cohortId: string, version: number | null): Promise<CachedChain> {
  const hit = chainInMemory(db, cohortId, version);
  if (hit) return hit;
  const rows = await loadOrderedChain(db, cohortId);
  // The cohort's windows ride with the chain: a cohort PATCH of them bumps the chain stamp.
  const cohortWindows = rows.length === 0 ? null : await cohortWindowsOf(db, cohortId);
  const loaded: CachedChain = { version, rows, releases: rows.map((row) => toChainRelease(row, cohortWindows)), indexById: new Map(rows.map((row, index) => [row.id, index])) };
  const cache = cacheOf(db);
  if (cache.size >= MAX_COHORTS) cache.clear();
  cache.set(cohortId, loaded);
  return loaded;
}
