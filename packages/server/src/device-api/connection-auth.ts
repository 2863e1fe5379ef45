/**
 * Authenticates every device API request by its TLS connection. The chain check runs once per
 * connection (the outcome is kept on the socket) and admits the device together with its
 * `device.connected` event (connection-admission.ts); every later request on a keep-alive
 * connection is admitted again by the same grouped statement, without the event, which confirms
 * the certificate is still registered and the device not archived. Sets `request.device` for
 * the routes (see device-routes.ts).
 *
 * A later request to a route whose config says `confirmsAdmission` (GET /update) skips that
 * statement: its check resolves on the row the connection last read and its write proves the
 * admission (AuthenticatedDevice.admission, admissions.ts AdmissionGuard), so a device polling
 * over a kept-alive connection costs one statement per check, not two. When the proof fails the
 * request is admitted the full way and refused, or checked again on the row read. A request whose
 * last_connected_at is due takes the full way, which writes it.
 *
 * A route whose config says `recordsConnection` (GET /update) writes the connection's
 * `device.connected` and last_connected_at in its own statement: on such a first request the
 * admission only reads, and hands the writes over on `request.device.connection`. Whatever the
 * route does not record (it answered 400 before its check, say) is written alone before the
 * response leaves, so a connection's event is committed when its first answer arrives, as always.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TLSSocket } from 'node:tls';
import { peerCertificates } from '../certificates/tls-peer';
import type { AuthenticatedDevice } from '../device-routes';
import { LastConnectedThrottle } from '../devices/last-connected';
import type { DeviceRow } from '../devices/schema';
import { ApiError } from '../http/errors';
import { resourcePrn } from '../http/prn';
import type { Platform } from '../platform';
import type { GuardedAdmission } from '../releases/update-service';
import { DeviceAuthFailureEvents } from './auth-events';
import { admitDevice } from './admissions';
import { admitConnection, readmitDevice, type AdmittedDevice, type ConnectionOutcome, type DeferredConnection } from './connection-admission';
import type { DeviceAuthFailure } from './failures';
import { monitoredHeaders } from './monitored-headers';

function refusal(failure: DeviceAuthFailure): ApiError {
  const context: Record<string, unknown> = { reason: failure.reason };
  if (failure.detail) context.detail = failure.detail;
  if (failure.position) context.position = failure.position;
  return new ApiError(401, [{ code: 'unauthenticated', context }]);
}

/** A device row as a connection read it, with its version (admissions.ts AdmissionResult). */
interface RowRead {
  row: DeviceRow;
  version: string;
}

function isTlsSocket(socket: unknown): socket is TLSSocket {
  return typeof (socket as TLSSocket | undefined)?.getPeerX509Certificate === 'function';
}

export function installDeviceAuthentication(app: FastifyInstance, platform: Platform): void {
  const failures = new DeviceAuthFailureEvents(platform);
  const lastConnected = new LastConnectedThrottle();
  const touchDue = (deviceId: string) => lastConnected.due(deviceId);
  const outcomes = new WeakMap<object, Promise<ConnectionOutcome>>();
  /** The device row each connection last read, with its version: what a later check resolves on. */
  const lastRead = new WeakMap<object, RowRead>();

  /** The connection's outcome, and whether this request is the one that computed it. */
  function outcomeOf(request: FastifyRequest): { outcome: Promise<ConnectionOutcome>; first: boolean } {
    const socket = request.raw.socket;
    const known = outcomes.get(socket);
    if (known) return { outcome: known, first: false };
    const peer = isTlsSocket(socket) ? peerCertificates(socket) : { leaf: undefined, intermediates: [] };
    const deferWrites = request.routeOptions.config?.recordsConnection === true;
    const outcome = admitConnection(platform, peer, { ip: request.ip, headers: monitoredHeaders(request.headers) }, touchDue, deferWrites);
    outcomes.set(socket, outcome);
    // A database error must not stick to the connection: the next request tries again.
    outcome.catch(() => outcomes.delete(socket));
    return { outcome, first: true };
  }

  function authenticated(row: DeviceRow, fingerprint: string, connection: DeferredConnection | null, admission: GuardedAdmission | null): AuthenticatedDevice {
    return { row, organizationId: row.organizationId, prn: resourcePrn(row.organizationId, 'device', row.id), certificateFingerprint: fingerprint, connection, admission };
  }

  /** A later request's admission left for its check's write to prove, with the full way when it cannot. */
  function guardedAdmission(request: FastifyRequest, read: RowRead, fingerprint: string): GuardedAdmission {
    const { row, version } = read;
    return {
      guard: { deviceId: row.id, organizationId: row.organizationId, fingerprint, version },
      confirm: async () => {
        const readmitted = await readmitDevice(platform, row, fingerprint, false);
        if (!readmitted.ok) return refuse(request, readmitted);
        lastRead.set(request.raw.socket, { row: readmitted.device, version: readmitted.version });
        return readmitted.device;
      },
    };
  }

  async function refuse(request: FastifyRequest, failure: DeviceAuthFailure): Promise<never> {
    await failures.failed(failure, request.ip).catch((error) => request.log.error({ err: error }, 'could not record authentication failure'));
    throw refusal(failure);
  }

  app.decorateRequest('device', null);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.public) return;
    const { outcome, first } = outcomeOf(request);
    const result = await outcome;
    if (!result.ok) {
      if (first) await refuse(request, result);
      throw refusal(result);
    }
    const socket = request.raw.socket;
    const fingerprint = result.fingerprint;
    let admitted: AdmittedDevice | DeviceAuthFailure = result;
    if (!first) {
      const read = lastRead.get(socket) ?? { row: result.device, version: result.version };
      const touch = touchDue(read.row.id);
      if (!touch && request.routeOptions.config?.confirmsAdmission === true) {
        request.device = authenticated(read.row, fingerprint, null, guardedAdmission(request, read, fingerprint));
        return;
      }
      // Admitted now, writing last_connected_at when due.
      admitted = await readmitDevice(platform, read.row, fingerprint, touch);
    }
    if (!admitted.ok) return refuse(request, admitted);
    lastRead.set(socket, { row: admitted.device, version: admitted.version });
    const deferred = first && 'deferred' in result ? result.deferred : undefined;
    const connection = deferred?.event ? { writes: { event: deferred.event, touch: deferred.touch }, recorded: false, admission: deferred } : null;
    request.device = authenticated(admitted.device, fingerprint, connection, null);
  });

  // The connection's writes the route did not record, written alone before the answer leaves.
  app.addHook('onSend', (request, _reply, payload, done) => {
    const connection = request.device?.connection;
    if (!connection || connection.recorded) return done(null, payload);
    admitDevice(platform.db, connection.admission).then(
      () => {
        connection.recorded = true;
        done(null, payload);
      },
      (error) => done(error),
    );
  });
}
