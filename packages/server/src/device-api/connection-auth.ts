/**
 * Authenticates every device API request by its TLS connection. The chain check runs once per
 * connection (the outcome is kept on the socket) and admits the device together with its
 * `device.connected` event (connection-admission.ts); every later request on a keep-alive
 * connection is admitted again by the same grouped statement, without the event, which confirms
 * the certificate is still registered and the device not archived. Sets `request.device` for
 * the routes (see device-routes.ts).
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
import { LastConnectedThrottle } from '../devices/last-connected';
import { ApiError } from '../http/errors';
import { resourcePrn } from '../http/prn';
import type { Platform } from '../platform';
import { DeviceAuthFailureEvents } from './auth-events';
import { admitDevice } from './admissions';
import { admitConnection, readmitDevice, type ConnectionOutcome } from './connection-admission';
import type { DeviceAuthFailure } from './failures';
import { monitoredHeaders } from './monitored-headers';

function refusal(failure: DeviceAuthFailure): ApiError {
  const context: Record<string, unknown> = { reason: failure.reason };
  if (failure.detail) context.detail = failure.detail;
  if (failure.position) context.position = failure.position;
  return new ApiError(401, [{ code: 'unauthenticated', context }]);
}

function isTlsSocket(socket: unknown): socket is TLSSocket {
  return typeof (socket as TLSSocket | undefined)?.getPeerX509Certificate === 'function';
}

export function installDeviceAuthentication(app: FastifyInstance, platform: Platform): void {
  const failures = new DeviceAuthFailureEvents(platform);
  const lastConnected = new LastConnectedThrottle();
  const touchDue = (deviceId: string) => lastConnected.due(deviceId);
  const outcomes = new WeakMap<object, Promise<ConnectionOutcome>>();

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
    const admitted = first ? result : await readmitDevice(platform, result.device, result.fingerprint, touchDue);
    if (!admitted.ok) return refuse(request, admitted);
    const device = admitted.device;
    const deferred = first && 'deferred' in result ? result.deferred : undefined;
    request.device = {
      row: device,
      organizationId: device.organizationId,
      prn: resourcePrn(device.organizationId, 'device', device.id),
      certificateFingerprint: admitted.fingerprint,
      connection: deferred?.event ? { writes: { event: deferred.event, touch: deferred.touch }, recorded: false, admission: deferred } : null,
    };
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
