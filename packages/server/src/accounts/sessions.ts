/**
 * Sessions: the keys POST /users/auth mints, acting as the user. One ends when unused for the
 * idle timeout or at its maximum lifetime after the log-in, whichever comes first. Each use
 * pushes the idle expiry on, but written at most once per renewal interval (a tenth of the idle
 * timeout, a minute at most) by this process and, through the UPDATE's condition, by all of them:
 * a busy console adds no write per request. A user lists and revokes their own sessions; an
 * admin those of any user of the organization. A revocation records `user.session_revoked`.
 */
import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Config } from '../config';
import type { Database, Executor } from '../db/connection';
import { PerHandle } from '../db/per-handle';
import { outsideRequestScope } from '../db/request-scope';
import { organizationPrn, resourceIdFromPrn, resourcePrn, userPrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import { WriteThrottle } from '../core/write-throttle';
import { recordEvent } from '../events/service';
import type { Actor } from '../http/actor';
import { notFound } from '../http/errors';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { authenticateApiKey, type ApiKeyRow } from './api-keys';
import { announceKeyRevocation } from './key-revocations';
import { apiKeys } from './schema';

export interface SessionPolicy {
  idleSeconds: number;
  maxSeconds: number;
}

export function sessionPolicy(config: Pick<Config, 'sessionIdleTimeoutSeconds' | 'sessionMaxLifetimeSeconds'>): SessionPolicy {
  return { idleSeconds: config.sessionIdleTimeoutSeconds, maxSeconds: config.sessionMaxLifetimeSeconds };
}

export function renewalIntervalMs(policy: SessionPolicy): number {
  return Math.min(60_000, policy.idleSeconds * 100);
}

/** The expiries of a session logged in at `now`. */
export function newSessionExpiries(policy: SessionPolicy, now = Date.now()): { expiresAt: string; endsAt: string } {
  const endsAt = now + policy.maxSeconds * 1000;
  return { expiresAt: new Date(Math.min(now + policy.idleSeconds * 1000, endsAt)).toISOString(), endsAt: new Date(endsAt).toISOString() };
}

/** A session as the API shows it: never its token, nor the token's first characters. */
export function sessionToWire(row: ApiKeyRow, current: boolean) {
  return {
    prn: resourcePrn(row.organizationId, 'session', row.id),
    organization_prn: organizationPrn(row.organizationId),
    user_prn: row.userId ? userPrn(row.userId) : null,
    user_agent: row.userAgent,
    last_used_at: toRfc3339(row.lastUsedAt),
    // A session always has an expiry (a plain key, none: it is never shown here).
    expires_at: toRfc3339(row.expiresAt)!,
    ends_at: toRfc3339(row.sessionEndsAt ?? row.expiresAt)!,
    inserted_at: toRfc3339(row.insertedAt),
    current,
  };
}

const renewals = new PerHandle<'renewals', WriteThrottle>();

/**
 * After a session key authenticated: pushes its idle expiry on (never past its end) and notes its
 * use, when due. It neither waits nor throws: the request goes on, a failure is logged.
 */
export function renewSession(db: Database, policy: SessionPolicy, keyId: string, log: Logger): void {
  const intervalMs = renewalIntervalMs(policy);
  if (!renewals.get(db, 'renewals', () => new WriteThrottle(intervalMs, 100_000)).due(keyId)) return;
  outsideRequestScope(() =>
    db
      .update(apiKeys)
      .set({
        lastUsedAt: sql`now()`,
        expiresAt: sql`least(now() + make_interval(secs => ${policy.idleSeconds}), coalesce(${apiKeys.sessionEndsAt}, ${apiKeys.expiresAt}))`,
      })
      .where(
        and(
          eq(apiKeys.id, keyId),
          eq(apiKeys.isSession, true),
          isNull(apiKeys.revokedAt),
          gt(apiKeys.expiresAt, sql`now()`),
          or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - make_interval(secs => ${intervalMs / 1000})`)),
        ),
      )
      .then(
        () => {},
        (error: Error) => log.warn({ err: error.message }, 'could not renew a session'),
      ),
  );
}

/** The admin API's key check: authenticateApiKey, and a session's renewal on its use. */
export function authenticateAndRenew(db: Database, policy: SessionPolicy, log: Logger) {
  const renew = (actor: Actor | null) => {
    if (actor?.isSession) renewSession(db, policy, actor.keyId, log);
    return actor;
  };
  return (token: string): Actor | null | Promise<Actor | null> => {
    const found = authenticateApiKey(db, token);
    return found instanceof Promise ? found.then(renew) : renew(found);
  };
}

const live = () => and(eq(apiKeys.isSession, true), isNull(apiKeys.revokedAt), gt(apiKeys.expiresAt, sql`now()`));

/** A user's live sessions (the user already checked to be in the organization). */
export async function listSessions(db: Executor, organizationId: string, userId: string, query: ListQuery) {
  const page = pageRequest(query);
  const { where, orderBy } = keyset(apiKeys, page);
  const rows = await db
    .select()
    .from(apiKeys)
    .where(combine(eq(apiKeys.userId, userId), eq(apiKeys.organizationId, organizationId), live(), where))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows, page);
}

export type RevocationReason = 'signed_out' | 'revoked';

/** Ends one live session of `userId` (404 when there is none by that prn), records it, and clears every process's key cache. */
export async function revokeSession(db: Database, actor: Actor, userId: string, sessionPrn: string, reason: RevocationReason): Promise<void> {
  const id = resourceIdFromPrn(sessionPrn, 'session', actor.organizationId);
  const [row] = id
    ? await db
        .update(apiKeys)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(apiKeys.id, id), eq(apiKeys.organizationId, actor.organizationId), eq(apiKeys.userId, userId), live()))
        .returning()
    : [];
  if (!row) throw notFound('session', sessionPrn);
  await recordEvent(db, {
    organizationId: actor.organizationId,
    type: 'user',
    subtype: 'session_revoked',
    actorPrn: actor.prn,
    resourcePrn: userPrn(userId),
    data: { reason, user_prn: userPrn(userId), session: sessionToWire(row, false) },
  });
  await announceKeyRevocation(db);
}

/** The prn of the caller's own session, or null for a plain API key. */
export function callerSessionPrn(actor: Actor): string | null {
  return actor.isSession ? resourcePrn(actor.organizationId, 'session', actor.keyId) : null;
}
