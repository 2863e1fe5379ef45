/**
 * Every context's device API routes (served over mutual TLS on CANOPY_DEVICE_PORT).
 * The device API server authenticates the client certificate before any of these run and
 * puts the calling device on `request.device`; routes read it with `deviceOf(request)`.
 */
import type { FastifyRequest } from 'fastify';
import type { DeferredConnection } from './device-api/connection-admission';
import type { DeviceRow } from './devices/schema';
import type { ContextRoutes } from './http/app-types';
import { unauthenticated } from './http/errors';
import { tunnelDeviceRoutes } from './tunnels/device-routes';

export interface AuthenticatedDevice {
  /** The device row as it was when the request was authenticated. */
  row: DeviceRow;
  organizationId: string;
  prn: string;
  /** Upper-case hex SHA-256 of the client certificate used. */
  certificateFingerprint: string;
  /**
   * On the first request of a connection to a route with `config.recordsConnection`: the
   * connection's `device.connected` and last_connected_at, for the route's own statement to
   * record (device-api/connection-auth.ts); null otherwise.
   */
  connection: DeferredConnection | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    device: AuthenticatedDevice | null;
  }
  interface FastifyContextConfig {
    /** The route records the connection's writes in its own statement (AuthenticatedDevice.connection). */
    recordsConnection?: boolean;
  }
}

export function deviceOf(request: FastifyRequest): AuthenticatedDevice {
  if (!request.device) throw unauthenticated('no_device');
  return request.device;
}

export const DEVICE_ROUTES: ContextRoutes[] = [tunnelDeviceRoutes];
