/**
 * The calling device of a device API request (served over mutual TLS on CANOPY_DEVICE_PORT).
 * The device API server authenticates the client certificate before any route runs and puts
 * the calling device on `request.device` (device-api/connection-auth.ts); routes read it with
 * `deviceOf(request)`, the device API's counterpart of `actorOf` (auth.ts).
 */
import type { FastifyRequest } from 'fastify';
import type { GuardedAdmission, PendingConnectionWrites } from '../admission/port';
import type { DeviceRow } from '../devices/schema';
import { unauthenticated } from './errors';

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
  connection: PendingConnectionWrites | null;
  /**
   * On a later request to a route with `config.confirmsAdmission`: the admission its write is
   * to prove (the update check's, updates/service.ts CheckOptions.admission; a report's,
   * update-reports/report-writes.ts); null when the request was admitted before the route ran.
   */
  admission: GuardedAdmission<DeviceRow> | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    device: AuthenticatedDevice | null;
  }
  interface FastifyContextConfig {
    /** The route records the connection's writes in its own statement (AuthenticatedDevice.connection). */
    recordsConnection?: boolean;
    /** A later request's admission is proven by the route's own write (AuthenticatedDevice.admission). */
    confirmsAdmission?: boolean;
  }
}

export function deviceOf(request: FastifyRequest): AuthenticatedDevice {
  if (!request.device) throw unauthenticated('no_device');
  return request.device;
}
