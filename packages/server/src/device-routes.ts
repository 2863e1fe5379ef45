/**
 * Every context's device API routes (served over mutual TLS on CANOPY_DEVICE_PORT).
 * The device API server authenticates the client certificate before any of these run and
 * puts the calling device on `request.device`; routes read it with `deviceOf(request)`.
 */
import type { FastifyRequest } from 'fastify';
import type { DeferredConnection } from './device-api/connection-admission';
import type { DeviceRow } from './devices/schema';
import type { ContextRoutes } from './http/app-types';
import type { GuardedAdmission } from './releases/update-service';
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
  /**
   * On a later request to a route with `config.confirmsAdmission`: the admission its update
   * check's write is to prove (releases/update-service.ts CheckOptions.admission); null when the
   * request was admitted before the route ran.
   */
  admission: GuardedAdmission | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    device: AuthenticatedDevice | null;
  }
  interface FastifyContextConfig {
    /** The route records the connection's writes in its own statement (AuthenticatedDevice.connection). */
    recordsConnection?: boolean;
    /** A later request's admission is proven by the route's update check (AuthenticatedDevice.admission). */
    confirmsAdmission?: boolean;
  }
}

export function deviceOf(request: FastifyRequest): AuthenticatedDevice {
  if (!request.device) throw unauthenticated('no_device');
  return request.device;
}

export const DEVICE_ROUTES: ContextRoutes[] = [tunnelDeviceRoutes];
