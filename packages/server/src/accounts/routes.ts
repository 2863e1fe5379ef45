import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { invalidField } from '../http/errors';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { errorResponse, list, NoContent, Nullable, Prn, PrnParams, single, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { apiKeyToWire, createApiKey } from './api-keys';
import { throttledLogIn } from './login-guard';
import { sessionPolicy } from './sessions';
import { createUser, deleteUser, getUser, listApiKeys, listUsers, revokeApiKey, userToWire } from './service';

const RoleSchema = Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')], {
  description: 'read: GET only; write: create, update and delete resources; admin: also keys, users, webhooks and CA certificates.',
  examples: ['write'],
});

const User = Type.Object({
  prn: Prn('Resource name of the user.', 'prn:1:user:4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f'),
  organization_prn: Prn('Organization of the user.', 'prn:1:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70'),
  email: Nullable(Type.String({ examples: ['ops@example.com'] })),
  username: Nullable(Type.String({ examples: ['ops'] })),
  role: RoleSchema,
  inserted_at: Timestamp('When the user was created.'),
  updated_at: Timestamp('When the user last changed.'),
});

const ApiKey = Type.Object({
  prn: Prn('Resource name of the key.'),
  organization_prn: Prn('Organization of the key.'),
  name: Type.String({ examples: ['ci pipeline'] }),
  kind: Type.Union([Type.Literal('current'), Type.Literal('legacy')], { description: 'Legacy keys cannot call POST /devices/{prn}/update.' }),
  role: RoleSchema,
  token_prefix: Type.String({ description: 'First characters of the key, to tell keys apart.', examples: ['cnpy_Xk3dP0a'] }),
  user_prn: Nullable(Type.String()),
  expires_at: Nullable(Type.String({ format: 'date-time' })),
  revoked_at: Nullable(Type.String({ format: 'date-time' })),
  inserted_at: Timestamp('When the key was created.'),
  key: Type.Optional(Type.String({ description: 'The key itself: shown in the create answer only, never again.' })),
});

const Password = Type.String({ minLength: 8, maxLength: 256, description: 'At least 8 characters.', examples: ['correct horse battery staple'] });
const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$', examples: ['ops@example.com'] });
const Username = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._-]+$', examples: ['ops'] });

export const accountRoutes: ContextRoutes = (app, platform) => {
  const { db } = platform;

  app.post('/users/auth', {
    config: { public: true },
    schema: {
      tags: ['users'],
      summary: 'Log in',
      description:
        'Checks an email or username and password and answers a session token, usable as a bearer API key until it is signed out (DELETE /users/me/session), unused for the idle timeout (12 hours by default; each use pushes `expires_at` on) or at its maximum lifetime (7 days by default). ' +
        'Repeated failures slow and then lock the account and the client address: 429 `login_throttled` or `login_locked` with `retry_after_seconds` (and a Retry-After header); a lock records a `user.locked` event.',
      body: Type.Object({
        email: Type.Optional(Type.String({ maxLength: 254, examples: ['ops@example.com'] })),
        username: Type.Optional(Type.String({ maxLength: 128, examples: ['ops'] })),
        password: Type.String({ minLength: 1, maxLength: 256, examples: ['correct horse battery staple'] }),
      }),
      response: {
        200: Type.Object({ data: Type.Object({ token: Type.String({ examples: ['cnpy_...'] }), expires_at: Timestamp('When the token stops working unless it is used before: each use pushes it on, up to the maximum lifetime.'), user: User }) }, { description: 'The session token and the user.' }),
        ...STANDARD_ERRORS,
        429: errorResponse('Too many failed log-ins for this account or address: wait `retry_after_seconds`.'),
      },
    },
    handler: async (request, reply) => {
      const { email, username, password } = request.body;
      if (!email && !username) throw invalidField('email', 'required', { alternative: 'username' });
      const userAgent = request.headers['user-agent'] ?? null;
      const session = await throttledLogIn(db, { email, username, password }, { policy: sessionPolicy(platform.config), userAgent }, request.ip, reply);
      return { data: { token: session.token, expires_at: session.expiresAt!, user: userToWire(session.user) } };
    },
  });

  app.get('/users/me', {
    config: { role: 'read' },
    schema: {
      tags: ['users'],
      summary: 'The calling user',
      description: 'The user behind a session token, or, for a plain API key, the organization and role of the key.',
      response: {
        200: Type.Object({
          data: Type.Object({
            prn: Nullable(Type.String()),
            email: Nullable(Type.String()),
            username: Nullable(Type.String()),
            role: RoleSchema,
            organization_prn: Type.String(),
          }),
        }, { description: 'Who the key acts as.' }),
        ...STANDARD_ERRORS,
      },
    },
    handler: async (request) => {
      const actor = actorOf(request);
      const user = actor.userId ? userToWire(await getUser(db, actor, `prn:1:user:${actor.userId}`)) : null;
      return {
        data: {
          prn: user?.prn ?? null,
          email: user?.email ?? null,
          username: user?.username ?? null,
          role: actor.role,
          organization_prn: `prn:1:${actor.organizationId}`,
        },
      };
    },
  });

  app.post('/users', {
    config: { role: 'admin' },
    schema: {
      tags: ['users'],
      summary: 'Create a user',
      description: 'Adds a user to the organization. Needs an email or a username (or both).',
      body: Type.Object({ email: Type.Optional(Nullable(Email)), username: Type.Optional(Nullable(Username)), password: Password, role: Type.Optional(RoleSchema) }),
      response: { 201: single('user', User), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const row = await createUser(db, actorOf(request), request.body);
      return reply.code(201).send({ user: userToWire(row) });
    },
  });

  app.get('/users', {
    config: { role: 'admin' },
    schema: { tags: ['users'], summary: 'List users', description: 'Users of the organization.', querystring: Type.Object({ ...LIST_QUERY_PROPERTIES }), response: { 200: list('users', User), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const page = await listUsers(db, actorOf(request), request.query);
      return { users: page.items.map(userToWire), next_page: page.nextPage };
    },
  });

  app.delete('/users/:prn', {
    config: { role: 'admin' },
    schema: { tags: ['users'], summary: 'Delete a user', description: 'Removes the user and its sessions, which stop working at once.', params: PrnParams('Resource name of the user.'), response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      await deleteUser(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });

  app.post('/api_keys', {
    config: { role: 'admin' },
    schema: {
      tags: ['api_keys'],
      summary: 'Create an API key',
      description: 'Mints a key; the answer carries the key once. Emits api_key.created.',
      body: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 128, examples: ['ci pipeline'] }),
        role: Type.Optional(RoleSchema),
        kind: Type.Optional(Type.Union([Type.Literal('current'), Type.Literal('legacy')], { default: 'current' })),
      }),
      response: { 201: single('api_key', ApiKey), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const actor = actorOf(request);
      const { row, token } = await db.transaction((tx) =>
        createApiKey(tx, { organizationId: actor.organizationId, name: request.body.name, kind: request.body.kind ?? 'current', role: request.body.role ?? 'read', actorPrn: actor.prn }),
      );
      return reply.code(201).send({ api_key: { ...apiKeyToWire(row), key: token } });
    },
  });

  app.get('/api_keys', {
    config: { role: 'admin' },
    schema: { tags: ['api_keys'], summary: 'List API keys', description: 'Keys of the organization (without their values).', querystring: Type.Object({ ...LIST_QUERY_PROPERTIES }), response: { 200: list('api_keys', ApiKey), ...STANDARD_ERRORS } },
    handler: async (request) => {
      const page = await listApiKeys(db, actorOf(request), request.query);
      return { api_keys: page.items.map(apiKeyToWire), next_page: page.nextPage };
    },
  });

  app.delete('/api_keys/:prn', {
    config: { role: 'admin' },
    schema: { tags: ['api_keys'], summary: 'Revoke an API key', description: 'The key stops working at once; its record stays.', params: PrnParams('Resource name of the key.'), response: { 204: NoContent('Revoked.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      await revokeApiKey(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });
};
