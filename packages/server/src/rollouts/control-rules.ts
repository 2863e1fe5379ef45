/**
 * Pause, resume and cancel of a release (site/docs/canopy-core/guides/rolling-out-safely.md),
 * as a pure transition on the release's control state, so every edge is unit-tested without a
 * database; controls.ts applies it under the cohort's chain lock.
 * - pause: no new offers; idempotent on a paused release.
 * - resume: clears a pause and a health-gate halt (the halt disabled the release, so resume
 *   enables it again); an operator's own `disabled` is left alone.
 * - cancel: final; no device is offered it again. Neither pause nor resume undoes it.
 */

export type ReleaseControl = 'pause' | 'resume' | 'cancel';

export interface ControlState {
  paused: boolean;
  halted: boolean;
  cancelled: boolean;
}

/** What to write: `clearHalt` clears `halted_at` and the `disabled` the halt set. */
export interface ControlChange {
  setPaused?: boolean;
  clearHalt?: boolean;
  setCancelled?: boolean;
}

export type ControlOutcome =
  | { kind: 'change'; change: ControlChange }
  /** Already in the asked state: nothing written, no event. */
  | { kind: 'unchanged' }
  | { kind: 'refused'; reason: 'release_cancelled' };

export function controlOutcome(action: ReleaseControl, state: ControlState): ControlOutcome {
  if (action === 'cancel') return state.cancelled ? { kind: 'unchanged' } : { kind: 'change', change: { setCancelled: true } };
  if (state.cancelled) return { kind: 'refused', reason: 'release_cancelled' };
  if (action === 'pause') return state.paused ? { kind: 'unchanged' } : { kind: 'change', change: { setPaused: true } };
  if (!state.paused && !state.halted) return { kind: 'unchanged' };
  return { kind: 'change', change: { ...(state.paused ? { setPaused: false } : {}), ...(state.halted ? { clearHalt: true } : {}) } };
}
