import { describe, expect, it } from 'vitest';
import { counted, delayAfter, judge, liveFailures, LOGIN_LIMITS, type CountState } from './login-throttle-policy';

const state = (over: Partial<CountState> = {}): CountState => ({ failures: 0, sinceLastFailure: 0, lockLeft: 0, hadLock: false, ...over });

describe('login throttle policy', () => {
  it('waits 1 s after slowAfter failures, doubling up to the maximum', () => {
    expect(delayAfter('account', LOGIN_LIMITS.account.slowAfter - 1)).toBe(0);
    expect(delayAfter('account', LOGIN_LIMITS.account.slowAfter)).toBe(1);
    expect(delayAfter('account', LOGIN_LIMITS.account.slowAfter + 1)).toBe(2);
    expect(delayAfter('address', 1000)).toBe(LOGIN_LIMITS.maxDelaySeconds);
  });

  it('refuses a locked account first, then a scope that must still wait, else lets the check go on', () => {
    const slowed = state({ failures: LOGIN_LIMITS.account.slowAfter, sinceLastFailure: 0.2 });
    expect(judge({ account: state({ lockLeft: 30 }), address: slowed })).toEqual({ kind: 'locked', scope: 'account', retryAfterSeconds: 30 });
    expect(judge({ account: state(), address: state({ lockLeft: 5 }) })).toMatchObject({ kind: 'locked', scope: 'address' });
    expect(judge({ account: slowed, address: state() })).toMatchObject({ kind: 'throttled', scope: 'account' });
    expect(judge({ account: { ...slowed, sinceLastFailure: 1.5 }, address: state() })).toEqual({ kind: 'check' });
  });

  it('starts the count again after the window or once a lock ran out', () => {
    expect(liveFailures(state({ failures: 4, sinceLastFailure: LOGIN_LIMITS.windowSeconds + 1 }))).toBe(0);
    expect(liveFailures(state({ failures: 10, sinceLastFailure: 10, lockLeft: -1, hadLock: true }))).toBe(0);
    expect(liveFailures(state({ failures: 10, sinceLastFailure: 10, lockLeft: 20, hadLock: true }))).toBe(10);
    expect(counted('account', state({ failures: 10, lockLeft: -1, hadLock: true }))).toEqual({ failures: 1, lock: false });
  });

  it('locks with the count that reaches lockAfter', () => {
    expect(counted('account', state({ failures: LOGIN_LIMITS.account.lockAfter - 2 }))).toEqual({ failures: LOGIN_LIMITS.account.lockAfter - 1, lock: false });
    expect(counted('account', state({ failures: LOGIN_LIMITS.account.lockAfter - 1 }))).toEqual({ failures: LOGIN_LIMITS.account.lockAfter, lock: true });
  });
});
