/**
 * API-key authentication and role checks for the admin API.
 *
 * `Authorization: Bearer <key>` (the scheme word `Token` is accepted too). Every route requires
 * a key unless its config says `public: true`; the role needed defaults to read for GET and
 * write for everything else, and a route raises it with `config: { role: 'admin' }`.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { roleAllows, type Actor, type Role } from './actor';
import { unauthenticated, unauthorized } from './errors';

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null;
  }
  interface FastifyContextConfig {
    public?: boolean;
    role?: Role;
  }
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The key from the Authorization header, or null when there is none. Throws on a malformed one. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  const match = /^(bearer|token)\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthenticated('malformed_authorization_header');
  return match[2];
}

export function requiredRole(request: FastifyRequest): Role {
  const configured = request.routeOptions.config?.role;
  if (configured) return configured;
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
}

export interface AuthOptions {
  authenticate(token: string): Promise<Actor | null>;
}

export const apiKeyAuth = fp<AuthOptions>(async (app: FastifyInstance, options) => {
  app.decorateRequest('actor', null);
  app.addHook('onRequest', async (request) => {
    // Unknown routes have no config and fall through to the not-found handler.
    if (!request.routeOptions.url || request.routeOptions.config?.public) return;
    const token = bearerToken(request.headers.authorization);
    if (token === null) throw unauthenticated('missing_api_key');
    const actor = await options.authenticate(token);
    if (!actor) throw unauthenticated('invalid_api_key');
    const role = requiredRole(request);
    if (!roleAllows(actor.role, role)) throw unauthorized(role);
    request.actor = actor;
  });
});

/** The caller of an authenticated route (the hook guarantees it is set). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw unauthenticated('missing_api_key');
  return request.actor;
}
