/**
 * Safe rollouts (site/docs/canopy-core/guides/rolling-out-safely.md): a release's rollout
 * progress with the fleet-wide "why not", the dry run of a release before it is created, and the
 * one-step revert. The health gate itself runs in the device report's transaction (halt.ts).
 */
import { resourceIdFromPrn, resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import type { Database, Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { ApiError, conflict, notFound, type ErrorEntry } from '../http/errors';
import { loadChain, lockCohortChain, type ReleaseRow } from '../releases/chain-store';
import { createRelease, getRelease, updateRelease, type NewRelease } from '../releases/service';
import { isScheduledInFuture } from '../releases/release-rules';
import { releaseToWire } from '../releases/wire';
import { isPhased } from '../updates/core/phase';
import { rolloutSnapshot, type RolloutSnapshot } from './counts';
import { restingCount } from './penalty-box';
import { evaluateFleet, type FleetEvaluation } from './fleet';
import { insideWindows, nextWindowStart } from '../updates/core/window-rule';
import { cohortWindowsOf } from './windows';
import { outcomeCounts } from './soak-rule';

export { CreateBody as DryRunBody, Release } from '../releases/api-schemas';
export { fields as releaseFields } from '../releases/api-schemas';

/**
 * The "why not" part of the progress answer resolves the cohort's devices (fleet.ts: one grouped
 * read, then one resolution per group of equal devices), so each process keeps the last
 * evaluation of each release and serves it with the time it was taken
 * (`eligibility_evaluated_at`); the counts beside it are read fresh on every request.
 * - When the cohort's chain stamp moved (any chain edit, a halt included), the kept evaluation
 *   no longer describes the chain: the request waits for a new one.
 * - When it is older than ELIGIBILITY_TTL_MS, the request is answered with it and a new one is
 *   taken in the background, so no request waits for the fleet merely because time passed.
 * One evaluation per release at a time: requests arriving while it runs share it.
 */
export const ELIGIBILITY_TTL_MS = 5_000;
/** Releases whose evaluation a process keeps (per database handle); past this the map is cleared. */
const KEPT_RELEASES = 1000;

interface Evaluated {
  at: Date;
  stamp: string;
  evaluation: FleetEvaluation;
}
interface KeptEvaluation {
  last: Evaluated | null;
  running: Promise<Evaluated> | null;
}
const kept = new WeakMap<object, Map<string, KeptEvaluation>>();

function evaluateNow(db: Executor, organizationId: string, releaseId: string, cohortId: string, stamp: string, entry: KeptEvaluation): Promise<Evaluated> {
  if (entry.running) return entry.running;
  const at = new Date();
  const running = (async () => {
    const chain = await loadChain(db, organizationId, cohortId);
    const index = chain.findIndex((row) => row.id === releaseId);
    return { at, stamp, evaluation: await evaluateFleet(db, organizationId, cohortId, chain, index, at) };
  })();
  entry.running = running;
  // Settled before any caller's await resumes (registered first), so a caller that finds the
  // result stale can start the next evaluation at once. A failed one is not kept.
  const settle = () => {
    if (entry.running === running) entry.running = null;
  };
  running.then((evaluated) => {
    settle();
    if (!entry.last || entry.last.at <= evaluated.at) entry.last = evaluated;
  }, settle);
  return running;
}

async function eligibilityOf(db: Executor, organizationId: string, releaseId: string, snapshot: RolloutSnapshot): Promise<Evaluated> {
  let releases = kept.get(db);
  if (!releases) kept.set(db, (releases = new Map()));
  let entry = releases.get(releaseId);
  if (!entry) {
    if (releases.size >= KEPT_RELEASES) releases.clear();
    releases.set(releaseId, (entry = { last: null, running: null }));
  }
  const last = entry.last;
  if (last && last.stamp === snapshot.chainStamp) {
    if (Date.now() - last.at.getTime() >= ELIGIBILITY_TTL_MS) {
      // Served as it is; a failed background evaluation leaves it, and the next request retries.
      evaluateNow(db, organizationId, releaseId, snapshot.cohortId, snapshot.chainStamp, entry).catch(() => undefined);
    }
    return last;
  }
  const running = await evaluateNow(db, organizationId, releaseId, snapshot.cohortId, snapshot.chainStamp, entry);
  // An evaluation started before the chain moved describes the old chain: take a fresh one.
  return running.stamp === snapshot.chainStamp ? running : evaluateNow(db, organizationId, releaseId, snapshot.cohortId, snapshot.chainStamp, entry);
}

export async function rolloutProgress(db: Database, actor: Actor, prn: string) {
  const id = resourceIdFromPrn(prn, 'release', actor.organizationId);
  const releasePrn = id === null ? null : resourcePrn(actor.organizationId, 'release', id);
  const snapshot = id === null || releasePrn === null ? null : await rolloutSnapshot(db, actor.organizationId, id, releasePrn);
  if (id === null || releasePrn === null || snapshot === null) throw notFound('release', prn);
  const eligibility = await eligibilityOf(db, actor.organizationId, id, snapshot);
  const outcome = outcomeCounts(snapshot.reported, snapshot.soakSeconds);
  return {
    release_prn: releasePrn,
    phase_value: snapshot.phaseValue,
    cohort_devices: snapshot.cohortDevices,
    eligible: eligibility.evaluation.eligible,
    claimed: isPhased(snapshot) ? snapshot.phaseClaimCount : null,
    reported: snapshot.reported,
    on_release: snapshot.onRelease,
    halted_at: toRfc3339(snapshot.haltedAt),
    paused_at: toRfc3339(snapshot.pausedAt),
    cancelled_at: toRfc3339(snapshot.cancelledAt),
    resting: await restingCount(db, id),
    updating: snapshot.reported.downloading + snapshot.reported.installing + snapshot.reported.rebooting,
    succeeded: outcome.succeeded,
    soaking: outcome.soaking,
    soak_seconds: snapshot.soakSeconds,
    deferred: snapshot.reported.deferred,
    max_concurrent: snapshot.maxConcurrent,
    updating_now: snapshot.updatingNow,
    halt_reason: snapshot.haltedAt === null ? null : 'failure_ratio',
    disabled: snapshot.disabled,
    halt_failure_ratio: snapshot.haltFailureRatio,
    halt_min_reports: snapshot.haltMinReports,
    not_eligible: eligibility.evaluation.notEligible,
    eligibility_evaluated_at: eligibility.at.toISOString(),
  };
}

/** Thrown to roll the dry run's transaction back once it has seen the chain it would make. */
class DryRunRollback extends Error {
  constructor(readonly chain: ReleaseRow[], readonly releaseId: string) {
    super('dry run');
  }
}

/**
 * The create of `POST /releases`, run in a transaction that is always rolled back: the same
 * validation, placement and chain rules, and nothing kept. The fleet is then evaluated against
 * the chain the create would have made.
 */
export async function dryRun(db: Database, actor: Actor, input: NewRelease, now = new Date()) {
  let outcome: DryRunRollback | null = null;
  let errors: ErrorEntry[] = [];
  try {
    await db.transaction(async (tx) => {
      // A savepoint inside this transaction (drizzle's nested transaction).
      const created = await createRelease(tx as unknown as Database, actor, input);
      throw new DryRunRollback(await loadChain(tx, actor.organizationId, created.cohortId), created.id);
    });
  } catch (error) {
    if (error instanceof DryRunRollback) outcome = error;
    else if (error instanceof ApiError && error.status < 500) errors = error.errors;
    else throw error;
  }
  const prn = (id: string | undefined) => (id === undefined ? null : resourcePrn(actor.organizationId, 'release', id));
  if (outcome === null) {
    return { valid: false, errors, position: { previous_release_prn: null, next_release_prn: null }, cohort_devices: 0, eligible: 0, would_claim: 0, not_eligible: null, next_window_at: null };
  }
  const index = outcome.chain.findIndex((row) => row.id === outcome.releaseId);
  const cohortId = outcome.chain[index].cohortId;
  const cohortWindows = await cohortWindowsOf(db, cohortId);
  const evaluation = await evaluateFleet(db, actor.organizationId, cohortId, outcome.chain, index, now);
  const windows = outcome.chain[index].maintenanceWindows ?? cohortWindows;
  const closed = windows !== null && !insideWindows(windows, now.getTime());
  const next = closed ? nextWindowStart(windows, now.getTime()) : null;
  return {
    valid: true,
    errors,
    position: { previous_release_prn: prn(outcome.chain[index - 1]?.id), next_release_prn: prn(outcome.chain[index + 1]?.id) },
    cohort_devices: evaluation.cohortDevices,
    eligible: evaluation.eligible,
    would_claim: evaluation.wouldClaim,
    not_eligible: evaluation.notEligible,
    next_window_at: next === null ? null : new Date(next).toISOString(),
  };
}

export interface RevertInput {
  name: string;
  version?: string | null;
}

/**
 * Disables the release and appends, at the end of its cohort's chain, a required release that
 * carries the bundle of the release before it: devices that took the bad release move back
 * through the normal update path; devices that never took it are already on that bundle.
 * Only the latest release may be phased or scheduled (release-rules.ts), so a reverted release
 * that is still phased has its phase closed (phase_value 1) and a future schedule cleared: it is
 * disabled, so neither ever applies again.
 */
export async function revertRelease(db: Database, actor: Actor, prn: string, input: RevertInput, now = new Date()) {
  return db.transaction(async (tx) => {
    const found = await getRelease(tx, actor, prn);
    await lockCohortChain(tx, found.cohortId);
    const chain = await loadChain(tx, actor.organizationId, found.cohortId);
    const index = chain.findIndex((row) => row.id === found.id);
    if (index <= 0) throw conflict('nothing_to_revert_to', { release_prn: prn, reason: 'first_release_of_chain' });
    const previous = chain[index - 1];
    const bad = chain[index];
    const change = {
      ...(bad.disabled ? {} : { disabled: true }),
      ...(isPhased(bad) ? { phase_value: 1 } : {}),
      ...(isScheduledInFuture(bad, now) ? { schedule_date: null } : {}),
    };
    const asDatabase = tx as unknown as Database;
    if (Object.keys(change).length > 0) await updateRelease(asDatabase, actor, prn, change);
    const created = await createRelease(asDatabase, actor, {
      bundle_prn: resourcePrn(actor.organizationId, 'bundle', previous.bundleId),
      cohort_prn: resourcePrn(actor.organizationId, 'cohort', found.cohortId),
      name: input.name,
      version: input.version ?? null,
      required: true,
      schedule_date: null,
      phase_value: 1,
    });
    return releaseToWire(created, now);
  });
}
