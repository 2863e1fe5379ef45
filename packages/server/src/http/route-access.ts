/**
 * Who may call each admin route, declared once on the route itself, in its `config`:
 * `{ public: true }`, `{ role: 'read' | 'write' | 'admin' }` (optionally `keyKinds`), or, for a
 * legacy route, `{ counterpart: 'DELETE /ca_certificates/:prn' }`: the access of the current
 * route it stands for, so the two cannot drift apart. There is no default: registering a route
 * that declares none of these throws, and the server does not start.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Actor, Role } from './actor';

export type KeyKind = Actor['keyKind'];
export const KEY_KINDS: readonly KeyKind[] = ['current', 'legacy'];

declare module 'fastify' {
  interface FastifyContextConfig {
    public?: boolean;
    role?: Role;
    /** Key kinds allowed (all when absent): `['current']` refuses legacy keys. */
    keyKinds?: readonly KeyKind[];
    /** `METHOD /path` of an earlier-registered route whose access this route takes. */
    counterpart?: string;
    /** Set by recordRouteAccess from the declaration above; read by the auth hook. */
    access?: Access;
  }
}

/** A route's resolved access: public, or the role and key kinds its caller needs. */
export type Access = { public: true } | { public: false; role: Role; keyKinds: readonly KeyKind[] };

/** One row of the route table: what `npm run route-access` writes and the role matrix test walks. */
export interface RouteAccessEntry {
  method: string;
  url: string;
  access: Access;
  /** The route whose declaration this one takes, for a legacy route. */
  counterpart: string | null;
  tags: string[];
  summary: string | null;
}

export const routeKey = (method: string, url: string) => `${method} ${url}`;

export class UndeclaredAccess extends Error {}

/**
 * Records each route's access as it is registered (an onRoute hook), stamping the resolved
 * access into its config for the request hook. Throws for a route that declares none.
 */
export function recordRouteAccess(app: FastifyInstance): () => readonly RouteAccessEntry[] {
  const table: RouteAccessEntry[] = [];
  const byKey = new Map<string, Access>();
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const config = route.config ?? {};
    const access = declaredAccess(config, route.url, byKey);
    route.config = { ...config, access } as typeof route.config;
    const schema = route.schema as { tags?: string[]; summary?: string } | undefined;
    for (const method of methods) {
      byKey.set(routeKey(method, route.url), access);
      table.push({ method, url: route.url, access, counterpart: config.counterpart ?? null, tags: [...(schema?.tags ?? [])], summary: schema?.summary ?? null });
    }
  });
  return () => table;
}

function declaredAccess(config: NonNullable<RouteOptions['config']>, url: string, known: Map<string, Access>): Access {
  const declared = [config.public === true, config.role !== undefined, config.counterpart !== undefined].filter(Boolean);
  if (declared.length !== 1 || (config.keyKinds && !config.role)) throw new UndeclaredAccess(`route ${url} must declare exactly one of config.public, config.role, config.counterpart (http/route-access.ts)`);
  if (config.public) return { public: true };
  if (config.role) return { public: false, role: config.role, keyKinds: config.keyKinds ?? KEY_KINDS };
  const access = known.get(config.counterpart!);
  if (!access) throw new UndeclaredAccess(`route ${url}: counterpart ${config.counterpart} is not registered before it`);
  return access;
}
