/**
 * The log-in throttle's rules as pure functions of the counts (login-throttle.ts keeps the counts
 * and applies the verdicts atomically). Per scope, the account and the client address:
 * - LIMITS.slowAfter failures in a row (within windowSeconds) mean a wait before the next attempt,
 *   1 s doubling per failure up to maxDelaySeconds; an attempt made sooner is refused
 *   (`login_throttled`) and counts as a failure itself, so hammering only locks sooner;
 * - at LIMITS.lockAfter failures the scope is locked for lockSeconds: every attempt is refused
 *   (`login_locked`) and counts nothing;
 * - an attempt that may reach the password check counts as a failure BEFORE it (a reservation, so
 *   concurrent attempts check no more passwords than the limits allow); a success takes it back.
 */
export const LOGIN_LIMITS = {
  account: { slowAfter: 5, lockAfter: 10 },
  address: { slowAfter: 20, lockAfter: 50 },
  /** Failures further apart than this start the count again. */
  windowSeconds: 15 * 60,
  lockSeconds: 15 * 60,
  maxDelaySeconds: 60,
} as const;

export type Scope = 'account' | 'address';
export const SCOPES: readonly Scope[] = ['account', 'address'];

/** One scope's row as the database sees it now (times in seconds, by the database's clock). */
export interface CountState {
  failures: number;
  sinceLastFailure: number;
  /** Seconds the lock still holds (<= 0: none or run out). */
  lockLeft: number;
  /** Whether a lock was ever set on this count (a lock that ran out starts the count again). */
  hadLock: boolean;
}

export type Verdict =
  | { kind: 'locked' | 'throttled'; scope: Scope; retryAfterSeconds: number }
  /** The password may be checked; the attempt is already counted. */
  | { kind: 'check' };

/** Seconds to wait after `failures` failures (0 below the slow-down threshold). */
export function delayAfter(scope: Scope, failures: number): number {
  const over = failures - LOGIN_LIMITS[scope].slowAfter;
  return over < 0 ? 0 : Math.min(2 ** over, LOGIN_LIMITS.maxDelaySeconds);
}

/** The failures that still count: none once the window passed or a lock ran out. */
export function liveFailures(state: CountState): number {
  if (state.lockLeft > 0) return state.failures;
  return state.hadLock || state.sinceLastFailure > LOGIN_LIMITS.windowSeconds ? 0 : state.failures;
}

/** Refused while locked (account first), else while either scope must still wait, else checked. */
export function judge(states: Record<Scope, CountState>): Verdict {
  for (const scope of SCOPES) {
    if (states[scope].lockLeft > 0) return { kind: 'locked', scope, retryAfterSeconds: states[scope].lockLeft };
  }
  for (const scope of SCOPES) {
    const wait = delayAfter(scope, liveFailures(states[scope])) - states[scope].sinceLastFailure;
    if (wait > 0) return { kind: 'throttled', scope, retryAfterSeconds: wait };
  }
  return { kind: 'check' };
}

/** What a counted attempt (checked or throttled) leaves in a scope's row. */
export function counted(scope: Scope, state: CountState): { failures: number; lock: boolean } {
  const failures = liveFailures(state) + 1;
  return { failures, lock: failures >= LOGIN_LIMITS[scope].lockAfter };
}
