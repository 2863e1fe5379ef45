/**
 * A device's update attempts from its `device.update_reported` events: each attempt is one
 * release (or bundle outside any release) from its first report to the one that finished it
 * (installed, failed, rolled_back); a report after a finished one starts a new attempt, but
 * a soak's `healthy` reports, which join the install they follow.
 */
export interface UpdateReportEvent {
  inserted_at: string;
  data: { data: Record<string, unknown> };
}

export interface AttemptStep {
  status: string;
  at: string;
  progress: number | null;
  reason: string | null;
}

export interface UpdateAttempt {
  releasePrn: string | null;
  bundlePrn: string;
  steps: AttemptStep[];
  /** The last step's status. */
  status: string;
  finished: boolean;
  /** The reason of the last step that gave one (a failure's). */
  reason: string | null;
  startedAt: string;
  lastAt: string;
}

const FINISHED = new Set(['installed', 'succeeded', 'failed', 'rolled_back']);
const text = (value: unknown) => (typeof value === 'string' ? value : null);

/** Attempts newest first, from events in any order. */
export function updateAttempts(events: readonly UpdateReportEvent[]): UpdateAttempt[] {
  const ordered = [...events].sort((a, b) => a.inserted_at.localeCompare(b.inserted_at));
  const open = new Map<string, UpdateAttempt>();
  const attempts: UpdateAttempt[] = [];
  for (const event of ordered) {
    const d = event.data.data;
    const status = text(d.status) ?? 'unknown';
    const releasePrn = text(d.release);
    const bundlePrn = text(d.bundle) ?? '';
    const key = releasePrn ?? `bundle ${bundlePrn}`;
    let attempt = open.get(key);
    // A soak's `healthy` reports belong to the install they follow, which stays as it finished.
    if (status === 'healthy' && attempt) {
      attempt.steps.push({ status, at: event.inserted_at, progress: null, reason: null });
      attempt.lastAt = event.inserted_at;
      continue;
    }
    if (!attempt || attempt.finished) {
      attempt = { releasePrn, bundlePrn, steps: [], status, finished: false, reason: null, startedAt: event.inserted_at, lastAt: event.inserted_at };
      open.set(key, attempt);
      attempts.push(attempt);
    }
    const reason = text(d.reason);
    attempt.steps.push({ status, at: event.inserted_at, progress: typeof d.progress === 'number' ? d.progress : null, reason });
    attempt.status = status;
    attempt.finished = FINISHED.has(status);
    attempt.lastAt = event.inserted_at;
    if (reason) attempt.reason = reason;
  }
  return attempts.sort((a, b) => b.lastAt.localeCompare(a.lastAt));
}
