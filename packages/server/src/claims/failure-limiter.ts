/**
 * Failed claims per client address: after MAX_FAILURES in WINDOW_MS an address is refused (429)
 * until its oldest failure leaves the window. Per process and in memory (bounded): a guesser
 * spread over many processes gets a multiple, which 256-bit secrets make harmless; the limit is
 * against noise and enumeration of states, not the only defence.
 */
export const MAX_FAILURES = 10;
export const WINDOW_MS = 60_000;
const MAX_ADDRESSES = 10_000;

export interface FailureLimiter {
  blocked(address: string, now?: number): boolean;
  fail(address: string, now?: number): void;
}

export function createFailureLimiter(max = MAX_FAILURES, windowMs = WINDOW_MS): FailureLimiter {
  const failures = new Map<string, number[]>();
  const recent = (address: string, now: number) => (failures.get(address) ?? []).filter((at) => at > now - windowMs);
  return {
    blocked(address, now = Date.now()) {
      return recent(address, now).length >= max;
    },
    fail(address, now = Date.now()) {
      if (failures.size >= MAX_ADDRESSES) failures.clear();
      failures.set(address, [...recent(address, now), now].slice(-max));
    },
  };
}
