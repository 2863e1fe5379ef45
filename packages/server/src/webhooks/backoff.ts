/**
 * When a failed delivery is tried again: exponential backoff with "equal jitter" (half fixed,
 * half random), so receivers coming back from an outage are not hit by every retry at once,
 * capped per step, and given up once the next try would fall outside the retry window.
 */
export interface RetryPolicy {
  baseMs: number;
  maxDelayMs: number;
  windowSeconds: number;
}

/** Delay before attempt `failedAttempts + 1`; `random` in [0, 1). */
export function retryDelayMs(failedAttempts: number, policy: RetryPolicy, random: number = Math.random()): number {
  const exponent = Math.min(Math.max(failedAttempts - 1, 0), 40);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}

/** The next attempt's time, or null when the delivery has run out of its window. */
export function nextAttemptAt(firstQueuedAt: Date, now: Date, failedAttempts: number, policy: RetryPolicy, random?: number): Date | null {
  const next = new Date(now.getTime() + retryDelayMs(failedAttempts, policy, random));
  const deadline = firstQueuedAt.getTime() + policy.windowSeconds * 1000;
  return next.getTime() > deadline ? null : next;
}
