/**
 * What a release is doing, in one word and one sentence, from the release and its rollout
 * counts. The first that holds wins: cancelled, halted, paused, disabled, scheduled, superseded,
 * complete, rolling. A release with a newer one after it in the chain is superseded, never
 * "rolling"; one every device of its cohort has is complete.
 */
import type { RolloutCounts } from './rollout-summary';
import { summarizeRollout } from './rollout-summary';

export type ReleaseStateKey = 'cancelled' | 'halted' | 'paused' | 'disabled' | 'scheduled' | 'superseded' | 'complete' | 'rolling' | 'rolling_with_failures';

export interface ReleaseLike {
  name: string;
  disabled: boolean;
  halted_at: string | null;
  schedule_date: string | null;
  next_release_prn: string | null;
  /** Fields of the rollout-controls API; absent on servers without it. */
  paused_at?: string | null;
  cancelled_at?: string | null;
}

export interface ReleaseState {
  key: ReleaseStateKey;
  label: string;
  color: string;
  sentence: string;
}

export function releaseState(release: ReleaseLike, rollout: RolloutCounts | undefined, now = Date.now()): ReleaseState {
  const name = release.name;
  if (release.cancelled_at) return { key: 'cancelled', label: 'cancelled', color: 'gray', sentence: `Release ${name} was cancelled: no device is offered it.` };
  if (release.halted_at) return { key: 'halted', label: 'halted', color: 'red', sentence: `The health gate halted release ${name}: too many of its installs failed, so devices that had not started it will not.` };
  if (release.paused_at) return { key: 'paused', label: 'paused', color: 'yellow', sentence: `Release ${name} is paused: no device starts it until it is resumed.` };
  if (release.disabled) return { key: 'disabled', label: 'halted by hand', color: 'gray', sentence: `Release ${name} is disabled: no device is offered it until it is resumed.` };
  if (release.schedule_date && Date.parse(release.schedule_date) > now) return { key: 'scheduled', label: 'scheduled', color: 'blue', sentence: `Release ${name} is scheduled: devices are offered it from the date it is set to start.` };
  if (release.next_release_prn) return { key: 'superseded', label: 'superseded', color: 'gray', sentence: `A newer release follows ${name} in its cohort's chain: devices go past it to the newer one (unless it is required).` };
  if (rollout) {
    const buckets = new Map(summarizeRollout(rollout).buckets.map((b) => [b.key, b.count]));
    const left = (buckets.get('in_progress') ?? 0) + (buckets.get('waiting') ?? 0) + (buckets.get('failed') ?? 0);
    if (rollout.cohort_devices > 0 && left === 0 && rollout.eligible === 0 && (buckets.get('on_it') ?? 0) >= rollout.cohort_devices)
      return { key: 'complete', label: 'complete', color: 'teal', sentence: `Every device of the cohort has release ${name}.` };
    if ((buckets.get('failed') ?? 0) > 0) return { key: 'rolling_with_failures', label: 'rolling, with failures', color: 'orange', sentence: `Release ${name} is rolling out, and some devices failed to install it.` };
  }
  return { key: 'rolling', label: 'rolling', color: 'green', sentence: `Release ${name} is rolling out to its cohort.` };
}
