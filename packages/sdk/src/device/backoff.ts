/**
 * How long a device waits before trying a failed device-API call again: exponential backoff with
 * "full jitter" (a random delay between zero and the step's ceiling), so a fleet that lost the
 * server at the same moment does not come back at the same moment. Pure: `random` is passed in,
 * in [0, 1), so tests pin it.
 */
export interface BackoffPolicy {
  /** Ceiling of the first retry's delay. */
  baseMs: number;
  /** No delay is ever longer than this. */
  maxDelayMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, maxDelayMs: 30_000 };

/** Delay before retry number `retry` (1 for the first retry). */
export function backoffDelayMs(retry: number, policy: BackoffPolicy, random: number): number {
  const exponent = Math.min(Math.max(retry - 1, 0), 30);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** exponent);
  return Math.floor(ceiling * Math.min(Math.max(random, 0), 0.999999));
}

/**
 * Whether an answer is worth trying again: the server was unreachable or overloaded (429, 502,
 * 503, 504, or no answer at all). Any other status is the server's considered answer.
 */
export function isRetryable(status: number | null): boolean {
  return status === null || status === 429 || status === 502 || status === 503 || status === 504;
}
