/**
 * The admin audit trail, for every write route at once: each POST, PUT, PATCH and DELETE that an
 * API key calls runs in a request scope (db/request-scope.ts), so everything its handler writes is
 * one transaction, and a successful answer adds an `audit` event (audit-entry.ts) to that same
 * transaction before it commits. The answer is held back until the commit: a client never sees a
 * success whose change (or whose audit event) could still be lost. A handler that throws rolls
 * back; one that answers an error itself keeps what it wrote, without an audit event.
 *
 * The wrapping is done once, when each route is added (Fastify's onRoute hook), so a route added
 * later is audited without a line of its own. Routes opt out only with `config.audit: false` and
 * a reason in `auditExemption` (a write that changes nothing, e.g. a dry run).
 */
import type { FastifyReply, FastifyRequest, RouteHandlerMethod, RouteOptions } from 'fastify';
import { inRequestTransaction } from '../db/request-scope';
import { resourcePrn, userPrn } from '../core/prn';
import type { AdminApp } from '../http/app-types';
import { actorOf } from '../http/auth';
import type { Platform } from '../platform';
import { auditEntry } from './audit-entry';
import { recordEvent } from './service';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: not audited (the route writes nothing); see auditExemption. */
    audit?: boolean;
    /** Why a write route is not audited. */
    auditExemption?: string;
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `/webhooks/:prn/roll_secret` -> `/webhooks/{prn}/roll_secret`, as the OpenAPI document writes it. */
export function documentPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Whether the route is an admin write the trail records: a write method, behind an API key, not exempt. */
export function isAuditedRoute(route: Pick<RouteOptions, 'method' | 'config'>): boolean {
  const methods = [route.method].flat().map(String);
  const config = route.config as { public?: boolean; audit?: boolean } | undefined;
  return methods.some((method) => WRITES.has(method)) && !config?.public && config?.audit !== false;
}

export interface WriteRoute {
  /** `PATCH /products/{prn}` */
  operation: string;
  audited: boolean;
  /** Why it is not: public (no API key, no actor), or the route's auditExemption. */
  exemption: string | null;
}

const writeRoutes = new WeakMap<object, WriteRoute[]>();

/** Every write route of an admin API built with the trail, audited or not (the audit test walks them). */
export function writeRoutesOf(app: object): WriteRoute[] {
  return writeRoutes.get(app) ?? [];
}

export function installAuditTrail(app: AdminApp, platform: Platform): void {
  const collections = new Set<string>();
  const routes: WriteRoute[] = [];
  writeRoutes.set(app, routes);
  app.addHook('onRoute', (route) => {
    // A collection is a first segment, or any segment that names its items by a parameter
    // (`/orgs/:org_name/.../certificates/:serial`): a POST to it creates, it is no action.
    const segments = route.url.split('/').filter(Boolean);
    segments.forEach((segment, i) => {
      if (!segment.startsWith(':') && (i === 0 || segments[i + 1]?.startsWith(':'))) collections.add(segment);
    });
    const config = route.config as { public?: boolean; auditExemption?: string } | undefined;
    for (const method of [route.method].flat().map(String).filter((m) => WRITES.has(m))) {
      const audited = isAuditedRoute(route);
      routes.push({ operation: `${method} ${documentPath(route.url)}`, audited, exemption: audited ? null : config?.public ? 'public: no API key, so no actor' : (config?.auditExemption ?? null) });
    }
    if (!isAuditedRoute(route)) return;
    const original = route.handler as RouteHandlerMethod;
    const path = documentPath(route.url);
    // Only a body the route declares is recorded: a route without one ignores whatever is sent.
    const declaresBody = Boolean((route.schema as { body?: unknown } | undefined)?.body);
    route.handler = async function audited(this: unknown, request: FastifyRequest, reply: FastifyReply) {
      const held = holdAnswer(reply);
      let answer: unknown;
      try {
        answer = await inRequestTransaction(
          platform.db,
          async () => {
            const returned = await (original as (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown).call(this, request, reply);
            return held.sent ? held.payload : returned;
          },
          async (answer) => {
            if (reply.statusCode >= 400) return;
            const actor = actorOf(request);
            const entry = auditEntry({ route: { method: request.method, path }, params: (request.params ?? {}) as Record<string, unknown>, body: declaresBody ? request.body : undefined, answer, collections });
            await recordEvent(platform.db, {
              organizationId: actor.organizationId,
              type: 'audit',
              subtype: entry.subtype,
              actorPrn: actor.prn,
              resourcePrn: entry.resourcePrn,
              data: { ...entry.data, api_key_prn: resourcePrn(actor.organizationId, 'api_key', actor.keyId), user_prn: actor.userId ? userPrn(actor.userId) : null },
            });
          },
        );
      } finally {
        held.release();
      }
      return reply.send(answer);
    } as RouteHandlerMethod;
  });
}

/**
 * Catches the handler's reply.send so the answer leaves only after the commit. A reply is a
 * thenable that settles once the answer is sent, and a handler returns it after send(): while
 * held, it settles at once, else the handler would wait for an answer that waits for it.
 */
function holdAnswer(reply: FastifyReply) {
  const held = {
    sent: false,
    payload: undefined as unknown,
    release() {
      delete (reply as { send?: unknown }).send;
      delete (reply as { then?: unknown }).then;
    },
  };
  (reply as unknown as { then: (fulfilled: (value: unknown) => void) => void }).then = (fulfilled) => fulfilled(undefined);
  (reply as { send: (payload?: unknown) => FastifyReply }).send = (payload?: unknown) => {
    held.sent = true;
    held.payload = payload;
    return reply;
  };
  return held;
}
