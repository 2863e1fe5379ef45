/**
 * `POST /users/auth` behind the login throttle: refused early while the account or address is
 * slowed or locked, failures counted, the count cleared on success (see login-throttle.ts).
 */
import type { FastifyReply } from 'fastify';
import type { Database } from '../db/connection';
import { ApiError } from '../http/errors';
import { clearLoginFailures, guardLogin, recordLoginFailure, type LoginSubject } from './login-throttle';
import { logIn, type LogIn } from './service';
import type { SessionPolicy } from './sessions';

export async function throttledLogIn(db: Database, login: LogIn, session: { policy: SessionPolicy; userAgent: string | null }, address: string, reply: FastifyReply) {
  const subject: LoginSubject = { identifier: login.email ?? login.username ?? '', address };
  try {
    await guardLogin(db, subject);
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) reply.header('retry-after', String(error.errors[0].context.retry_after_seconds));
    throw error;
  }
  try {
    const answer = await logIn(db, login, session.policy, session.userAgent);
    await clearLoginFailures(db, subject);
    return answer;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) await recordLoginFailure(db, subject);
    throw error;
  }
}
