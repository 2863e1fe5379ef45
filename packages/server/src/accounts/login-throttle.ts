/**
 * The log-in throttle's counts (login_throttles) and their atomic use: an attempt takes both its
 * rows (the account's and the client address's) under a row lock, is judged by
 * login-throttle-policy.ts and, unless refused for a lock, counted as a failure, all in one short
 * transaction BEFORE any password is checked. So concurrent guesses, in one process or many on
 * one database, can never check more passwords than the limits allow. A success then clears the
 * account's count and takes the address's reservation back.
 *
 * The account is the user, whichever identifier (email or username) names it; an identifier that
 * names no user is counted under itself, with the same statements, so neither the answers nor the
 * timing tell whether an account exists.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/connection';
import { recordEvent } from '../events/service';
import { ApiError } from '../http/errors';
import { userPrn } from '../core/prn';
import { loginThrottles } from './login-throttle-schema';
import { counted, judge, LOGIN_LIMITS, SCOPES, type CountState, type Scope } from './login-throttle-policy';

export { LOGIN_LIMITS } from './login-throttle-policy';

export interface LoginSubject {
  /** The user the identifier names, or null (then `identifier` is counted instead). */
  user: { id: string; organizationId: string } | null;
  /** The email or username as sent. */
  identifier: string;
  address: string;
}

/** A counted attempt, settled after the password check by loginSucceeded or loginFailed. */
export interface Reservation {
  subject: LoginSubject;
  keys: Record<Scope, string>;
  /** This attempt's count locked the account: a failure records `user.locked`. */
  locksAccount: boolean;
}

function keysOf(subject: LoginSubject): Record<Scope, string> {
  const account = subject.user ? `user:${subject.user.id}` : `login:${subject.identifier.toLowerCase()}`;
  return { account, address: `address:${subject.address}` };
}

function refusal(code: 'login_locked' | 'login_throttled', scope: Scope, retryAfterSeconds: number): ApiError {
  return new ApiError(429, [{ code, context: { scope, retry_after_seconds: Math.max(1, Math.ceil(retryAfterSeconds)) } }]);
}

/**
 * Counts the attempt and answers its reservation, or refuses it (429) while the account or address
 * is locked or must still wait; a refusal for waiting counts as a failure too.
 */
export async function reserveLoginAttempt(db: Database, subject: LoginSubject): Promise<Reservation> {
  const keys = keysOf(subject);
  const { verdict, locksAccount } = await db.transaction(async (tx) => {
    // Creates missing rows and locks both, the account's first (every attempt takes them in this
    // order, so two attempts never wait for each other in a cycle).
    const rows = rowsOf(
      await tx.execute(sql`
        insert into ${loginThrottles} as t (key, failures, last_failure_at)
        values (${keys.account}, 0, now()), (${keys.address}, 0, now())
        on conflict (key) do update set failures = t.failures
        returning key, failures,
          extract(epoch from now() - last_failure_at)::float8 as since_last,
          coalesce(extract(epoch from locked_until - now())::float8, 0) as lock_left,
          locked_until is not null as had_lock`),
    );
    const states = Object.fromEntries(SCOPES.map((scope) => [scope, toState(rows.find((row) => row.key === keys[scope]))])) as Record<Scope, CountState>;
    const verdict = judge(states);
    if (verdict.kind === 'locked') return { verdict, locksAccount: false };
    const next = Object.fromEntries(SCOPES.map((scope) => [scope, counted(scope, states[scope])])) as Record<Scope, ReturnType<typeof counted>>;
    await tx.execute(sql`
      update ${loginThrottles} as t set
        failures = v.failures, last_failure_at = now(),
        locked_until = case when v.lock then now() + make_interval(secs => ${LOGIN_LIMITS.lockSeconds}) end
      from (values ${sql.join(
        SCOPES.map((scope) => sql`(${keys[scope]}::text, ${next[scope].failures}::int, ${next[scope].lock}::boolean)`),
        sql`, `,
      )}) as v(key, failures, lock)
      where t.key = v.key`);
    return { verdict, locksAccount: next.account.lock };
  });
  if (verdict.kind === 'check') return { subject, keys, locksAccount };
  if (verdict.kind === 'throttled' && locksAccount) await recordLockEvent(db, subject);
  throw refusal(verdict.kind === 'locked' ? 'login_locked' : 'login_throttled', verdict.scope, verdict.retryAfterSeconds);
}

/** The password was wrong: the attempt stays counted; waiting is measured from now. */
export async function loginFailed(db: Database, reservation: Reservation): Promise<void> {
  // One row per statement: a statement holding one row while waiting for the other could close a
  // cycle with a reservation holding them in the other order.
  for (const key of [reservation.keys.account, reservation.keys.address]) {
    await db.execute(sql`update ${loginThrottles} set last_failure_at = greatest(last_failure_at, now()) where key = ${key}`);
  }
  if (reservation.locksAccount) await recordLockEvent(db, reservation.subject);
}

/** The password was right: the account starts from zero; the address's count is as before the attempt. */
export async function loginSucceeded(db: Database, reservation: Reservation): Promise<void> {
  const { account, address } = reservation.keys;
  await db.execute(sql`delete from ${loginThrottles} where key = ${account}`);
  // Only this attempt's own count can have set a lock below the limit: it goes with it.
  await db.execute(sql`
    update ${loginThrottles} set failures = greatest(failures - 1, 0),
      locked_until = case when failures - 1 < ${LOGIN_LIMITS.address.lockAfter} then null else locked_until end
    where key = ${address}`);
}

async function recordLockEvent(db: Database, subject: LoginSubject): Promise<void> {
  if (!subject.user) return;
  await recordEvent(db, {
    organizationId: subject.user.organizationId,
    type: 'user',
    subtype: 'locked',
    actorPrn: null,
    resourcePrn: userPrn(subject.user.id),
    data: { reason: 'failed_logins', failures: LOGIN_LIMITS.account.lockAfter, locked_seconds: LOGIN_LIMITS.lockSeconds, address: subject.address },
  });
}

function toState(row: Record<string, unknown> | undefined): CountState {
  if (!row) throw new Error('login_throttles: a reserved row is missing');
  return { failures: Number(row.failures), sinceLastFailure: Number(row.since_last), lockLeft: Number(row.lock_left), hadLock: row.had_lock === true || row.had_lock === 't' };
}

/** drizzle's execute answers `{rows}` on both drivers. */
function rowsOf(result: unknown): Record<string, unknown>[] {
  return (result as { rows: Record<string, unknown>[] }).rows;
}
