/**
 * The soak's pace on the device (the server's rule: packages/server/src/rollouts/soak-rule.ts):
 * after installing a release with `soak_seconds`, the daemon runs its health check every
 * soakCheckInterval and reports `healthy`, until the server answers that the soak passed (or that
 * there is none); a failed check is reported as `failed` and counts against the release. Pure.
 */
import type { Soak } from './state.ts';

/** Seconds between health checks during a soak: a tenth of it, 1 s at least and 60 s at most. */
export function soakCheckInterval(seconds: number): number {
  return Math.min(60, Math.max(1, Math.round(seconds / 10)));
}

/**
 * When (ms) the next soak check is due: one interval after the last (at once when none ran in this
 * process), and never later than just after the soak's end here, so the confirming report is not
 * an interval late.
 */
export function soakCheckDueAt(soak: Soak, lastCheckAt: number | null): number {
  if (lastCheckAt === null) return Date.parse(soak.started_at);
  const end = Date.parse(soak.started_at) + soak.seconds * 1000;
  const next = lastCheckAt + soakCheckInterval(soak.seconds) * 1000;
  return lastCheckAt < end && next > end ? end : next;
}
