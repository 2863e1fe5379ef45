/**
 * `POST /users/auth` behind the login throttle (login-throttle.ts): the identifier is resolved to
 * its user first, so one count covers log-in by email and by username; the attempt is counted
 * (or refused) before the password is checked, and the count settled by the outcome.
 */
import type { FastifyReply } from 'fastify';
import type { Database } from '../db/connection';
import { ApiError, unauthenticated } from '../http/errors';
import { loginFailed, loginSucceeded, reserveLoginAttempt } from './login-throttle';
import { findLoginUser, openSession, passwordMatches, type LoginCredentials } from './service';
import type { SessionPolicy } from './sessions';

export async function throttledLogIn(db: Database, login: LoginCredentials, session: { policy: SessionPolicy; userAgent: string | null }, address: string, reply: FastifyReply) {
  const user = await findLoginUser(db, login);
  const subject = { user: user && { id: user.id, organizationId: user.organizationId }, identifier: login.email ?? login.username ?? '', address };
  let reservation;
  try {
    reservation = await reserveLoginAttempt(db, subject);
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) reply.header('retry-after', String(error.errors[0].context.retry_after_seconds));
    throw error;
  }
  const matches = await passwordMatches(user, login.password);
  if (!user || !matches) {
    await loginFailed(db, reservation);
    throw unauthenticated('invalid_credentials');
  }
  await loginSucceeded(db, reservation);
  return openSession(db, user, login.password, session.policy, session.userAgent);
}
