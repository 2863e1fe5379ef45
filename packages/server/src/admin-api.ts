/**
 * The admin API: an HTTP server authenticated by API keys, one plugin per domain context.
 * A new context adds its routes to ADMIN_ROUTES and nothing else here changes.
 */
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { authenticateAndRenew, sessionPolicy } from './accounts/sessions';
import { ADMIN_ROUTES } from './admin-routes';
import { installAuditTrail } from './events/audit-trail';
import type { AdminApp } from './http/app-types';
import { apiKeyAuth } from './http/auth';
import { installJsonCompression } from './http/json-compression';
import { installAdminSecurityHeaders } from './http/security-headers';
import { baseServerOptions, installCommonHooks } from './http/server-options';
import { adminOpenApiDocument } from './openapi/documents';
import type { Platform } from './platform';

export async function buildAdminApi(platform: Platform): Promise<AdminApp> {
  const app = Fastify(baseServerOptions(platform.config.logLevel, platform.config.bodyLimit)).withTypeProvider<TypeBoxTypeProvider>();
  installCommonHooks(app);
  installJsonCompression(app);
  await installAdminSecurityHeaders(app);
  await app.register(swagger, { openapi: adminOpenApiDocument(platform.config.publicUrl) });
  // Before any route is added: it wraps every write route as it is added.
  installAuditTrail(app, platform);
  await app.register(apiKeyAuth, { authenticate: authenticateAndRenew(platform.db, sessionPolicy(platform.config), platform.log) });

  app.get('/healthz', {
    config: { public: true },
    schema: {
      tags: ['health'],
      summary: 'Health check',
      description: 'Answers 200 while the server can reach its database.',
      response: { 200: Type.Object({ status: Type.Literal('ok') }, { description: 'The server and its database are up.' }) },
    },
    handler: async () => {
      await platform.db.execute(sql`select 1`);
      return { status: 'ok' as const };
    },
  });

  app.get('/openapi.json', {
    config: { public: true },
    schema: { hide: true },
    handler: async () => app.swagger(),
  });

  for (const routes of ADMIN_ROUTES) await routes(app, platform);
  return app;
}
