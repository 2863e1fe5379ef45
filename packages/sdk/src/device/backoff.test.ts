import { describe, expect, it } from 'vitest';
import { backoffDelayMs, isRetryable } from './backoff';

const policy = { baseMs: 100, maxDelayMs: 1000 };

describe('backoffDelayMs', () => {
  it('doubles the ceiling each retry, up to the cap', () => {
    const almostOne = 0.999999;
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffDelayMs(retry, policy, almostOne))).toEqual([99, 199, 399, 799, 999, 999]);
  });

  it('spreads delays over the whole step with the random draw', () => {
    expect(backoffDelayMs(3, policy, 0)).toBe(0);
    expect(backoffDelayMs(3, policy, 0.5)).toBe(200);
    expect(backoffDelayMs(3, policy, 0.25)).toBe(100);
  });

  it('never goes negative or past the cap, whatever it is given', () => {
    expect(backoffDelayMs(0, policy, 0.5)).toBe(50);
    expect(backoffDelayMs(1_000_000, policy, 1)).toBeLessThan(1000);
    expect(backoffDelayMs(2, policy, -3)).toBe(0);
  });
});

describe('isRetryable', () => {
  it('retries lost connections and overload, not considered answers', () => {
    expect([null, 429, 502, 503, 504].every(isRetryable)).toBe(true);
    expect([200, 201, 400, 401, 404, 409, 422, 500].some(isRetryable)).toBe(false);
  });
});
