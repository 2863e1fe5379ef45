/**
 * The device API: HTTPS on CANOPY_DEVICE_PORT, a client certificate required for every route.
 *
 * TLS asks for a client certificate but accepts any: the chain is verified in our code against
 * the CA certificates registered at that moment (authenticate.ts), so a refused device gets a 401
 * with a reason instead of a bare handshake failure. Session tickets are off, since a resumed
 * session lacks the client's intermediates; full handshakes are made cheap instead
 * (docs/decisions/011-device-tls-full-handshakes.md).
 *
 * Other contexts add routes through DEVICE_ROUTES (../device-routes.ts) and nothing here changes.
 */
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { constants } from 'node:crypto';
import type { Server } from 'node:net';
import { DEVICE_ROUTES } from '../device-routes';
import type { AdminApp } from '../http/app-types';
import { baseServerOptions, installCommonHooks } from '../http/server-options';
import { deviceOpenApiDocument } from '../openapi/documents';
import type { Platform } from '../platform';
import { installDeviceAuthentication } from './connection-auth';
import { createTokenBucket, shedExcessHandshakes, type SheddingCounters } from './handshake-shedding';
import { watchLoopLateness } from './loop-lateness';
import { deviceApiRoutes } from './routes';
import type { DeviceTlsIdentity } from './tls-identity';

export interface DeviceApi {
  app: FastifyInstance;
  /** Connections accepted, shed and closed by handshake shedding (null when built without TLS). */
  shedding: SheddingCounters | null;
}

// Devices send tiny requests; a large body is never legitimate here.
const DEVICE_BODY_LIMIT = 64 * 1024;

/** `handshakeTimeoutMs`: Node's own deadline (default 120 s), behind handshake shedding's from the accept. */
function tlsOptions(identity: DeviceTlsIdentity, handshakeTimeoutMs: number) {
  return {
    key: identity.keyPem,
    cert: identity.certPem,
    requestCert: true,
    rejectUnauthorized: false,
    secureOptions: constants.SSL_OP_NO_TICKET,
    handshakeTimeout: handshakeTimeoutMs,
  };
}

/** `identity` null builds the routes over plain HTTP without listening: only to describe the API. */
export async function buildDeviceApi(platform: Platform, identity: DeviceTlsIdentity | null, publicUrl = 'https://localhost:4001'): Promise<DeviceApi> {
  const options: FastifyServerOptions & { https?: object } = baseServerOptions(platform.config.logLevel, DEVICE_BODY_LIMIT);
  if (identity) options.https = tlsOptions(identity, platform.config.deviceHandshakeTimeoutSeconds * 1000);
  const app = Fastify(options).withTypeProvider<TypeBoxTypeProvider>();
  installCommonHooks(app);
  await app.register(swagger, { openapi: deviceOpenApiDocument(publicUrl) });
  installDeviceAuthentication(app, platform);

  app.get('/openapi.json', { config: { public: true }, schema: { hide: true }, handler: async () => app.swagger() });

  // Route registration is the same on the HTTPS server; the contexts' ContextRoutes type names the
  // admin (HTTP) instance only because that is the common case.
  const routesApp = app as unknown as AdminApp;
  await deviceApiRoutes(routesApp, platform);
  for (const routes of DEVICE_ROUTES) await routes(routesApp, platform);

  const { config } = platform;
  const shedding = identity
    ? shedExcessHandshakes(app.server as unknown as Server, {
        bucket: createTokenBucket(config.deviceHandshakeRate, config.deviceHandshakeBurst),
        concurrency: config.deviceHandshakeConcurrency,
        perAddress: config.deviceHandshakePerAddress,
        maxLoopDelayMs: config.deviceHandshakeMaxLoopDelayMs,
        lateness: watchLoopLateness(),
        waitingPerAddress: config.deviceHelloWaitPerAddress,
        waitingTotal: config.deviceHelloWaitTotal,
        helloTimeoutMs: config.deviceHelloTimeoutSeconds * 1000,
        handshakeTimeoutMs: config.deviceHandshakeTimeoutSeconds * 1000,
      })
    : null;
  return { app: app as unknown as FastifyInstance, shedding };
}
