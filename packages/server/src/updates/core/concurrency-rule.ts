/**
 * The concurrency cap, pure: a release with `max_concurrent` offers itself to at most that many
 * devices at once (offered, and no installed/failed/rolled_back/deferred report yet). A device
 * holding a slot keeps it; one beyond a full cap is told to come back after a hint of seconds;
 * one below it must take a slot, which the caller takes exactly (updates/slot-claims.ts).
 */
import type { ExplainDetail, ResolutionResult, SlotState } from './resolution-types';

export const MAX_CONCURRENT_MAX = 1_000_000;
export const SLOT_TIMEOUT_MIN = 10;
export const SLOT_TIMEOUT_MAX = 7 * 24 * 3600;
/** A slot whose device never reports is freed after this (the release may set its own). */
export const DEFAULT_SLOT_TIMEOUT_SECONDS = 3600;
/** The retry hint a device beyond the cap gets by default (seconds, before its jitter). */
export const DEFAULT_RETRY_SECONDS = 60;

export type CapDecision =
  | { kind: 'held'; detail: ExplainDetail }
  | { kind: 'take'; detail: ExplainDetail }
  | { kind: 'full'; retryAfterSeconds: number; detail: ExplainDetail };

/**
 * Spreads the retries of devices refused together over +-25% of the base hint, by device id
 * (stable for one device, so a test can predict it), so they do not all come back at once.
 */
export function retryAfterSeconds(deviceId: string, baseSeconds = DEFAULT_RETRY_SECONDS): number {
  let hash = 0;
  for (let i = 0; i < deviceId.length; i++) hash = (hash * 31 + deviceId.charCodeAt(i)) >>> 0;
  const spread = (hash % 501) / 1000 - 0.25; // -0.25 .. +0.25
  return Math.max(1, Math.round(baseSeconds * (1 + spread)));
}

/** Whether the device may be offered a release capped at `cap`, given the state read. */
export function capDecision(cap: number, state: SlotState, deviceId: string, retryBaseSeconds = DEFAULT_RETRY_SECONDS): CapDecision {
  const detail = { max_concurrent: cap, updating: state.used };
  if (state.held) return { kind: 'held', detail };
  if (state.used >= cap) return { kind: 'full', retryAfterSeconds: retryAfterSeconds(deviceId, retryBaseSeconds), detail };
  return { kind: 'take', detail };
}

/**
 * The answer when the slot resolution asked for was refused at the take (the cap filled since
 * the state read): come back later, as if the read had shown the cap full.
 */
export function slotRefused(result: ResolutionResult, deviceId: string, retryBaseSeconds = DEFAULT_RETRY_SECONDS): ResolutionResult {
  const retry = retryAfterSeconds(deviceId, retryBaseSeconds);
  const subject = result.slot === null ? undefined : { type: 'release' as const, id: result.slot.releaseId };
  const explanation = [...result.explanation.slice(0, -1), { step: 'concurrency' as const, subject, outcome: 'skipped' as const, reason: 'concurrency_full' as const, detail: { retry_after_seconds: retry } }];
  return { status: 'retry_later', sourceType: null, releaseId: null, bundleId: null, overrideId: null, claim: null, slot: null, retryAfterSeconds: retry, explanation };
}

/** Field problems of a release's cap settings (422), each naming its field. */
export function capSettingProblems(maxConcurrent: number | null, slotTimeoutSeconds: number | null): { field: string; reason: string }[] {
  const problems: { field: string; reason: string }[] = [];
  if (maxConcurrent !== null && !(Number.isInteger(maxConcurrent) && maxConcurrent >= 1 && maxConcurrent <= MAX_CONCURRENT_MAX)) {
    problems.push({ field: 'max_concurrent', reason: 'out_of_range' });
  }
  if (slotTimeoutSeconds !== null && !(Number.isInteger(slotTimeoutSeconds) && slotTimeoutSeconds >= SLOT_TIMEOUT_MIN && slotTimeoutSeconds <= SLOT_TIMEOUT_MAX)) {
    problems.push({ field: 'slot_timeout_seconds', reason: 'out_of_range' });
  }
  return problems;
}
