/**
 * The penalty box's arithmetic (site/docs/canopy-core/guides/rolling-out-safely.md): a device
 * that fails a release `failures` times (within `window_seconds` of each other, when set) rests
 * from it for `rest_seconds`, then is offered it once more: one more failure boxes it again.
 * Defaults as NervesHub's per-firmware threshold: 3 failures, no window, 24 h; its other rule
 * (5 within 180 s) counts fewer devices than "3 of the same release" here, where every failure
 * is of one release. An operator's release (penalty-box.ts) starts the count afresh. Pure.
 */

export interface PenaltySettings {
  failures: number;
  windowSeconds: number | null;
  restSeconds: number;
}

export const DEFAULT_PENALTY: PenaltySettings = { failures: 3, windowSeconds: null, restSeconds: 86_400 };

export interface PenaltyState {
  /** Failures (ms since epoch) since the device last left the box, oldest first. */
  failedAt: number[];
  /** Times boxed since an operator last released it. */
  rests: number;
  restUntil: number | null;
}

export const FRESH: PenaltyState = { failedAt: [], rests: 0, restUntil: null };

export function settingsOf(stored: { failures: number; window_seconds: number | null; rest_seconds: number } | null): PenaltySettings {
  return stored === null ? DEFAULT_PENALTY : { failures: stored.failures, windowSeconds: stored.window_seconds, restSeconds: stored.rest_seconds };
}

/** The state after one more failure at `now`. */
export function afterFailure(settings: PenaltySettings, state: PenaltyState, now: number): PenaltyState {
  // Once it has rested, the next failure is its last chance ("then once more").
  const line = state.rests > 0 ? 1 : settings.failures;
  const failedAt = [...state.failedAt, now].slice(-line);
  const crossed = failedAt.length >= line && (settings.windowSeconds === null || now - failedAt[0] <= settings.windowSeconds * 1000);
  if (!crossed) return { ...state, failedAt };
  return { failedAt: [], rests: state.rests + 1, restUntil: now + settings.restSeconds * 1000 };
}

export function isResting(state: Pick<PenaltyState, 'restUntil'>, now: number): boolean {
  return state.restUntil !== null && now < state.restUntil;
}

/** Field problems of the settings as they would be stored (422). */
export function penaltySettingProblems(stored: { failures: number; window_seconds: number | null; rest_seconds: number } | null): { field: string; reason: string; allowed: string }[] {
  if (stored === null) return [];
  const problems: { field: string; reason: string; allowed: string }[] = [];
  const integer = (value: unknown, min: number) => Number.isInteger(value) && (value as number) >= min;
  if (!integer(stored.failures, 1) || stored.failures > 100) problems.push({ field: 'penalty_box.failures', reason: 'out_of_range', allowed: 'an integer 1..100' });
  if (stored.window_seconds !== null && !integer(stored.window_seconds, 1)) problems.push({ field: 'penalty_box.window_seconds', reason: 'out_of_range', allowed: 'null, or an integer >= 1' });
  if (!integer(stored.rest_seconds, 1)) problems.push({ field: 'penalty_box.rest_seconds', reason: 'out_of_range', allowed: 'an integer >= 1' });
  return problems;
}
