/**
 * STAND-IN for the mTLS device API server, for routing tests only, until that server lands on
 * main. It serves DEVICE_ROUTES over plain HTTP and takes the calling device from the
 * `x-test-device-prn` header instead of a client certificate. It proves nothing about device
 * authentication; once the real server is on main, device-route tests move to it.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { DEVICE_ROUTES } from '../../src/device-routes';
import { findDeviceById } from '../../src/devices/service';
import { parsePrn } from '../../src/http/prn';
import { baseServerOptions, installCommonHooks } from '../../src/http/server-options';
import type { Platform } from '../../src/platform';
import type { Api, ApiResponse } from './server';

export const TEST_DEVICE_HEADER = 'x-test-device-prn';

export interface DeviceApiStandIn {
  /** A client that calls as the device with this prn. */
  as(devicePrn: string): Api;
  close(): Promise<void>;
}

export async function startDeviceApiStandIn(platform: Platform): Promise<DeviceApiStandIn> {
  const app = Fastify(baseServerOptions('silent', platform.config.bodyLimit)).withTypeProvider<TypeBoxTypeProvider>();
  installCommonHooks(app);
  app.decorateRequest('device', null);
  app.addHook('onRequest', async (request) => {
    const prn = parsePrn(request.headers[TEST_DEVICE_HEADER]);
    if (!prn || prn.kind !== 'resource' || prn.type !== 'device') return;
    const row = await findDeviceById(platform.db, prn.organizationId, prn.id);
    if (row) request.device = { row, organizationId: row.organizationId, prn: request.headers[TEST_DEVICE_HEADER] as string, certificateFingerprint: 'STAND-IN' };
  });
  for (const routes of DEVICE_ROUTES) await routes(app, platform);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    as(devicePrn) {
      return async (method, path, body) => {
        const response = await fetch(`${url}${path}`, {
          method,
          headers: { [TEST_DEVICE_HEADER]: devicePrn, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers } as ApiResponse<never>;
      };
    },
    close: () => app.close(),
  };
}
