/**
 * API-key authentication and role checks for the admin API.
 *
 * `Authorization: Bearer <key>` (the scheme word `Token` is accepted too). Each route declares
 * who may call it (route-access.ts): public, or a role and the key kinds allowed; there is no
 * default, so a route that declares nothing stops the server at start.
 */
import crypto, { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { roleAllows, type Actor } from './actor';
import { ApiError, unauthenticated, unauthorized } from './errors';
import { recordRouteAccess, type Access, type RouteAccessEntry } from './route-access';

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null;
  }
  interface FastifyInstance {
    /** Every route registered so far with its resolved access (the role matrix, the docs). */
    routeAccess(): readonly RouteAccessEntry[];
  }
}

/**
 * crypto.hash is the one-shot form (Node >= 20.12): no Hash object per call, which every admin
 * request pays for its key. Older Node 20 releases lack it and build the object.
 */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function hashToken(token: string): string {
  return oneShotHash ? oneShotHash('sha256', token, 'hex') : createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The key from the Authorization header, or null when there is none. Throws on a malformed one. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  const match = /^(bearer|token)\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthenticated('malformed_authorization_header');
  return match[2];
}

export interface AuthOptions {
  /** The key's actor, or null; a plain value when it is known without waiting (a cached key). */
  authenticate(token: string): Actor | null | Promise<Actor | null>;
}

/** Sets request.actor, or throws the 401/403 the key, its role or its kind earns. */
function admit(request: FastifyRequest, access: Access & { public: false }, actor: Actor | null): void {
  if (!actor) throw unauthenticated('invalid_api_key');
  if (!roleAllows(actor.role, access.role)) throw unauthorized(access.role);
  if (!access.keyKinds.includes(actor.keyKind)) {
    throw new ApiError(403, [{ code: `${actor.keyKind}_api_key_not_allowed`, context: { required_key_kind: access.keyKinds.join(',') } }]);
  }
  request.actor = actor;
}

export const apiKeyAuth = fp<AuthOptions>(async (app: FastifyInstance, options) => {
  app.decorateRequest('actor', null);
  app.decorate('routeAccess', recordRouteAccess(app));
  // A callback hook: with a cached key the request goes on in the same tick, with no promise;
  // only a key that needs a database lookup waits for one.
  app.addHook('onRequest', (request, _reply, done) => {
    // Unknown routes have no config and fall through to the not-found handler.
    if (!request.routeOptions.url) return done();
    const access = request.routeOptions.config.access;
    // Every route got its access when it was registered; one without it fails closed.
    if (!access) return done(new Error(`no declared access for ${request.routeOptions.url}`));
    if (access.public) return done();
    let found: Actor | null | Promise<Actor | null>;
    try {
      const token = bearerToken(request.headers.authorization);
      if (token === null) throw unauthenticated('missing_api_key');
      found = options.authenticate(token);
      if (!(found instanceof Promise)) admit(request, access, found);
    } catch (error) {
      return done(error as Error);
    }
    if (!(found instanceof Promise)) return done();
    found.then(
      (actor) => {
        try {
          admit(request, access, actor);
        } catch (error) {
          return done(error as Error);
        }
        done();
      },
      (error: Error) => done(error),
    );
  });
});

/** The caller of an authenticated route (the hook guarantees it is set). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw unauthenticated('missing_api_key');
  return request.actor;
}
