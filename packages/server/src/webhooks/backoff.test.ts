import { describe, expect, it } from 'vitest';
import { nextAttemptAt, retryDelayMs, type RetryPolicy } from './backoff';

const POLICY: RetryPolicy = { baseMs: 10_000, maxDelayMs: 6 * 3600_000, windowSeconds: 3 * 86_400 };

describe('webhook retry backoff', () => {
  it('doubles per failure, jittered between half and all of the step', () => {
    expect(retryDelayMs(1, POLICY, 0)).toBe(5_000);
    expect(retryDelayMs(1, POLICY, 0.999999)).toBeCloseTo(10_000, -1);
    expect(retryDelayMs(2, POLICY, 0)).toBe(10_000);
    expect(retryDelayMs(5, POLICY, 0)).toBe(80_000);
    for (let i = 0; i < 100; i++) {
      const delay = retryDelayMs(3, POLICY);
      expect(delay).toBeGreaterThanOrEqual(20_000);
      expect(delay).toBeLessThanOrEqual(40_000);
    }
  });

  it('caps each step and never overflows', () => {
    expect(retryDelayMs(30, POLICY, 1)).toBe(POLICY.maxDelayMs);
    expect(retryDelayMs(10_000, POLICY, 1)).toBe(POLICY.maxDelayMs);
  });

  it('gives up after three days of retries', () => {
    const queued = new Date('2025-01-01T00:00:00Z');
    expect(nextAttemptAt(queued, new Date('2025-01-02T00:00:00Z'), 12, POLICY, 0)).toBeInstanceOf(Date);
    expect(nextAttemptAt(queued, new Date('2025-01-03T23:59:00Z'), 20, POLICY, 0)).toBeNull();
    let now = queued;
    let attempts = 0;
    for (;;) {
      const next = nextAttemptAt(queued, now, ++attempts, POLICY, 0.5);
      if (!next) break;
      now = next;
    }
    // A steady outage is retried a few dozen times, not thousands, over its three days.
    expect(attempts).toBeGreaterThan(15);
    expect(attempts).toBeLessThan(40);
  });
});
