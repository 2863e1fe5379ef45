/**
 * Sessions (sessions.ts): sign-out, a user's own sessions, and an admin's view of a user's.
 * Signing out and revoking one's own sessions needs only the read role: every user may end
 * their own access.
 */
import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { conflict, notFound } from '../http/errors';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, NoContent, Nullable, Prn, PrnParams, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { getUser } from './service';
import { callerSessionPrn, listSessions, revokeSession, sessionToWire } from './sessions';

const Session = Type.Object({
  prn: Prn('Resource name of the session.', 'prn:1:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70:session:0b6f1c2e-5d4a-4c3b-8a9f-1e2d3c4b5a69'),
  organization_prn: Prn('Organization of the session.'),
  user_prn: Nullable(Type.String({ description: 'The user the session acts as.' })),
  user_agent: Nullable(Type.String({ description: 'The User-Agent header of the log-in, when it sent one.', examples: ['Mozilla/5.0 (X11; Linux x86_64)'] })),
  last_used_at: Nullable(Timestamp('When the session was last used, to within its renewal interval (a minute at most).')),
  expires_at: Timestamp('When the session ends if it is not used before; each use pushes it on, never past ends_at.'),
  ends_at: Timestamp('When the session ends whatever its use.'),
  inserted_at: Timestamp('When the user logged in.'),
  current: Type.Boolean({ description: 'Whether this is the session making the request.' }),
});

const ListQuery = Type.Object({ ...LIST_QUERY_PROPERTIES });
const SessionParams = PrnParams('Resource name of the session.');
const UserSessionParams = Type.Object({ prn: Prn('Resource name of the user.', 'prn:1:user:4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f'), session_prn: Prn('Resource name of the session.') });

export const sessionRoutes: ContextRoutes = (app, platform) => {
  const { db } = platform;

  app.delete('/users/me/session', {
    config: { role: 'read' },
    schema: {
      tags: ['users'],
      summary: 'Sign out',
      description: 'Ends the session making the request: its token is refused from then on, by every server process. Records `user.session_revoked`. A plain API key is not a session: 409 `not_a_session` (revoke it with DELETE /api_keys/{prn}).',
      response: { 204: NoContent('Signed out.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      const prn = callerSessionPrn(actor);
      if (!prn || !actor.userId) throw conflict('not_a_session');
      await revokeSession(db, actor, actor.userId, prn, 'signed_out');
      return reply.code(204).send();
    },
  });

  app.get('/users/me/sessions', {
    config: { role: 'read' },
    schema: {
      tags: ['users'],
      summary: "The calling user's sessions",
      description: 'Live sessions of the user behind the key (never their tokens); empty for a plain API key without a user.',
      querystring: ListQuery,
      response: { 200: list('sessions', Session), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const actor = actorOf(request);
      if (!actor.userId) return { sessions: [], next_page: null };
      const page = await listSessions(db, actor.organizationId, actor.userId, request.query);
      return { sessions: page.items.map((row) => sessionToWire(row, actor.isSession === true && row.id === actor.keyId)), next_page: page.nextPage };
    },
  });

  app.delete('/users/me/sessions/:prn', {
    config: { role: 'read' },
    schema: {
      tags: ['users'],
      summary: 'Revoke one of your sessions',
      description: "Ends one of the calling user's sessions at once. Records `user.session_revoked`.",
      params: SessionParams,
      response: { 204: NoContent('Revoked.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      if (!actor.userId) throw notFound('session', request.params.prn);
      await revokeSession(db, actor, actor.userId, request.params.prn, 'revoked');
      return reply.code(204).send();
    },
  });

  app.get('/users/:prn/sessions', {
    config: { role: 'admin' },
    schema: {
      tags: ['users'],
      summary: "A user's sessions",
      description: 'Live sessions of a user of the organization (never their tokens).',
      params: PrnParams('Resource name of the user.'),
      querystring: ListQuery,
      response: { 200: list('sessions', Session), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const actor = actorOf(request);
      const user = await getUser(db, actor, request.params.prn);
      const page = await listSessions(db, actor.organizationId, user.id, request.query);
      return { sessions: page.items.map((row) => sessionToWire(row, actor.isSession === true && row.id === actor.keyId)), next_page: page.nextPage };
    },
  });

  app.delete('/users/:prn/sessions/:session_prn', {
    config: { role: 'admin' },
    schema: {
      tags: ['users'],
      summary: "Revoke a user's session",
      description: 'Ends a session of a user of the organization at once. Records `user.session_revoked`.',
      params: UserSessionParams,
      response: { 204: NoContent('Revoked.'), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      const user = await getUser(db, actor, request.params.prn);
      await revokeSession(db, actor, user.id, request.params.session_prn, 'revoked');
      return reply.code(204).send();
    },
  });
};
