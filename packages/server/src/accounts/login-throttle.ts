/**
 * Slows and then locks `POST /users/auth` after repeated failures, per account and per client
 * address, so passwords cannot be guessed online at any useful rate:
 *
 * - an account with LIMITS.account.slowAfter failures in a row (within the window) must wait
 *   before its next attempt: 1 s, then doubling per failure up to maxDelaySeconds; an attempt
 *   made sooner answers 429 `login_throttled` with `retry_after_seconds` (and Retry-After) and
 *   counts as a failure itself, so hammering only locks sooner;
 * - at LIMITS.account.lockAfter failures the account is locked for lockSeconds: every attempt,
 *   right password or not, answers 429 `login_locked`, and a `user.locked` event is recorded in
 *   the user's organization;
 * - the same per client address with higher limits (many people may share one address), so one
 *   address cannot try many accounts either;
 * - a successful log-in clears the account's count (not the address's).
 *
 * Unknown accounts are counted like known ones, so the answers do not tell whether one exists.
 * The counts live in the database (login_throttles) and every decision is taken by the database's
 * clock in one statement, so all server processes on one database agree.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/connection';
import { recordEvent } from '../events/service';
import { ApiError } from '../http/errors';
import { userPrn } from '../core/prn';
import { loginThrottles } from './login-throttle-schema';

export const LOGIN_LIMITS = {
  account: { slowAfter: 5, lockAfter: 10 },
  address: { slowAfter: 20, lockAfter: 50 },
  /** Failures further apart than this start the count again. */
  windowSeconds: 15 * 60,
  lockSeconds: 15 * 60,
  maxDelaySeconds: 60,
} as const;

type Scope = 'account' | 'address';

export interface LoginSubject {
  /** The email or username as sent (compared lowercased). */
  identifier: string;
  address: string;
}

const keyOf = (scope: Scope, subject: LoginSubject) => (scope === 'account' ? `account:${subject.identifier.toLowerCase()}` : `address:${subject.address}`);

/** Seconds to wait after `failures` failures (0 below the slow-down threshold). */
export function delayAfter(scope: Scope, failures: number): number {
  const over = failures - LOGIN_LIMITS[scope].slowAfter;
  return over < 0 ? 0 : Math.min(2 ** over, LOGIN_LIMITS.maxDelaySeconds);
}

function refusal(code: 'login_locked' | 'login_throttled', scope: Scope, retryAfterSeconds: number): ApiError {
  return new ApiError(429, [{ code, context: { scope, retry_after_seconds: Math.max(1, Math.ceil(retryAfterSeconds)) } }]);
}

interface ThrottleState {
  key: string;
  failures: number;
  /** Seconds since the last failure, by the database's clock. */
  sinceLast: number;
  /** Seconds the lock still holds (<= 0: none). */
  lockLeft: number;
}

async function statesOf(db: Database, keys: string[]): Promise<ThrottleState[]> {
  const rows = await db.execute(sql`
    select key, failures,
           extract(epoch from now() - last_failure_at)::float8 as since_last,
           coalesce(extract(epoch from locked_until - now())::float8, 0) as lock_left
    from ${loginThrottles} where key in (${sql.join(keys.map((k) => sql`${k}`), sql`, `)})`);
  return rowsOf(rows).map(toState);
}

function toState(row: Record<string, unknown>): ThrottleState {
  return { key: String(row.key), failures: Number(row.failures), sinceLast: Number(row.since_last), lockLeft: Number(row.lock_left) };
}

/**
 * Refuses the attempt (429) when either key is locked or must still wait. A refused early
 * attempt counts as a failure. Answers nothing when the attempt may go on to the password check.
 */
export async function guardLogin(db: Database, subject: LoginSubject): Promise<void> {
  const states = await statesOf(db, [keyOf('account', subject), keyOf('address', subject)]);
  for (const scope of ['account', 'address'] as const) {
    const state = states.find((s) => s.key === keyOf(scope, subject));
    if (!state || (state.sinceLast > LOGIN_LIMITS.windowSeconds && state.lockLeft <= 0)) continue;
    if (state.lockLeft > 0) throw refusal('login_locked', scope, state.lockLeft);
    const wait = delayAfter(scope, state.failures) - state.sinceLast;
    if (wait > 0) {
      await recordLoginFailure(db, subject);
      throw refusal('login_throttled', scope, wait);
    }
  }
}

/** Counts a failure for the account and the address; locks (with an event) at the limit. */
export async function recordLoginFailure(db: Database, subject: LoginSubject): Promise<void> {
  for (const scope of ['account', 'address'] as const) {
    const { lockAfter } = LOGIN_LIMITS[scope];
    const rows = await db.execute(sql`
      insert into ${loginThrottles} (key, failures, last_failure_at, locked_until)
      values (${keyOf(scope, subject)}, 1, now(), null)
      on conflict (key) do update set
        failures = case when ${loginThrottles.lastFailureAt} < now() - make_interval(secs => ${LOGIN_LIMITS.windowSeconds})
                          and coalesce(${loginThrottles.lockedUntil} < now(), true)
                        then 1 else ${loginThrottles.failures} + 1 end,
        last_failure_at = now()
      returning failures`);
    const failures = Number(rowsOf(rows)[0]?.failures ?? 0);
    if (failures !== lockAfter) continue;
    await db.execute(sql`update ${loginThrottles} set locked_until = now() + make_interval(secs => ${LOGIN_LIMITS.lockSeconds}) where key = ${keyOf(scope, subject)}`);
    if (scope === 'account') await recordLockEvent(db, subject, failures);
  }
}

/** A successful log-in: the account starts from zero again. */
export async function clearLoginFailures(db: Database, subject: LoginSubject): Promise<void> {
  await db.execute(sql`delete from ${loginThrottles} where key = ${keyOf('account', subject)}`);
}

async function recordLockEvent(db: Database, subject: LoginSubject, failures: number): Promise<void> {
  const identifier = subject.identifier.toLowerCase();
  const [user] = rowsOf(
    await db.execute(sql`select id, organization_id from users where lower(email) = ${identifier} or username = ${subject.identifier} limit 1`),
  );
  if (!user) return;
  await recordEvent(db, {
    organizationId: String(user.organization_id),
    type: 'user',
    subtype: 'locked',
    actorPrn: null,
    resourcePrn: userPrn(String(user.id)),
    data: { reason: 'failed_logins', failures, locked_seconds: LOGIN_LIMITS.lockSeconds, address: subject.address },
  });
}

/** drizzle's execute answers `{rows}` on both drivers. */
function rowsOf(result: unknown): Record<string, unknown>[] {
  return (result as { rows: Record<string, unknown>[] }).rows;
}
