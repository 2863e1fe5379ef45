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
 *
 * When that route also confirms admissions, a reconnecting device's first request is not admitted
 * by a statement either (connection-admission.ts `speculate`): its check resolves on the row this
 * process last admitted the device with, and its write proves the admission, `device.connected`
 * included. The connection's later requests wait until the first has settled it: proven by the
 * write, admitted the full way when the write could not prove it (or refused: 401), or, when the
 * route wrote nothing (a 400 before its check), admitted with its writes before the answer
 * leaves. A refusal found then does not turn that answer into a 401, as on a later request; it
 * is recorded, and the connection's next request gets the 401.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TLSSocket } from 'node:tls';
import { peerCertificates } from '../certificates/tls-peer';
import type { RowRead } from '../certificates/verified-chains';
import type { AuthenticatedDevice } from '../device-routes';
import { LastConnectedThrottle } from '../devices/last-connected';
import type { DeviceRow } from '../devices/schema';
import { ApiError } from '../http/errors';
import { resourcePrn } from '../http/prn';
import type { Platform } from '../platform';
import type { GuardedAdmission } from '../releases/update-service';
import { DeviceAuthFailureEvents } from './auth-events';
import { admitDevice, type Admission } from './admissions';
import {
  admitConnection,
  admittedAsRemembered,
  isUnconfirmed,
  readmitDevice,
  type AdmittedConnection,
  type ConnectionOutcome,
  type DeferredConnection,
  type UnconfirmedConnection,
} from './connection-admission';
import type { DeviceAuthFailure } from './failures';
import { monitoredHeaders } from './monitored-headers';

function refusal(failure: DeviceAuthFailure): ApiError {
  const context: Record<string, unknown> = { reason: failure.reason };
  if (failure.detail) context.detail = failure.detail;
  if (failure.position) context.position = failure.position;
  return new ApiError(401, [{ code: 'unauthenticated', context }]);
}

/** A first request's connection writes, handed to its route (null when the admission records no event). */
function deferredConnection(admission: Admission): DeferredConnection | null {
  return admission.event ? { writes: { event: admission.event, touch: admission.touch }, recorded: false, admission } : null;
}

/** A connection's outcome as its later requests see it: an unconfirmed one is settled first. */
type SettledOutcome = AdmittedConnection | DeviceAuthFailure;

function isTlsSocket(socket: unknown): socket is TLSSocket {
  return typeof (socket as TLSSocket | undefined)?.getPeerX509Certificate === 'function';
}

export function installDeviceAuthentication(app: FastifyInstance, platform: Platform): void {
  const failures = new DeviceAuthFailureEvents(platform);
  const lastConnected = new LastConnectedThrottle();
  const touchDue = (deviceId: string) => lastConnected.due(deviceId);
  /** Each connection's outcome, as its later requests see it. */
  const outcomes = new WeakMap<object, Promise<SettledOutcome>>();
  /** Each connection's outcome once settled, as later requests see it: read without waiting. */
  const settledOutcomes = new WeakMap<object, SettledOutcome>();
  /** The device row each connection last read, with its version: what a later check resolves on. */
  const lastRead = new WeakMap<object, RowRead>();
  /** Connections whose first request is still to prove their admission: the outcome, and how to settle it for the rest. */
  const unsettled = new WeakMap<object, { outcome: UnconfirmedConnection; settle(result: SettledOutcome | Promise<SettledOutcome>): void }>();

  /** The connection's outcome, and whether this request is the one that computed it. */
  function outcomeOf(request: FastifyRequest): { outcome: Promise<ConnectionOutcome>; first: boolean } {
    const socket = request.raw.socket;
    const known = outcomes.get(socket);
    if (known) return { outcome: known, first: false };
    const peer = isTlsSocket(socket) ? peerCertificates(socket) : { leaf: undefined, intermediates: [] };
    const config = request.routeOptions.config;
    const deferWrites = config?.recordsConnection === true;
    const options = { deferWrites, speculate: deferWrites && config?.confirmsAdmission === true };
    const outcome = admitConnection(platform, peer, { ip: request.ip, headers: monitoredHeaders(request.headers) }, touchDue, options);
    let resolveSettled: (result: SettledOutcome | Promise<SettledOutcome>) => void = () => {};
    const settled = new Promise<SettledOutcome>((resolve) => (resolveSettled = resolve));
    // The later requests see an unconfirmed outcome only once the first request has settled it.
    const forLater = outcome.then((result): SettledOutcome | Promise<SettledOutcome> => {
      if (!isUnconfirmed(result)) return result;
      unsettled.set(socket, { outcome: result, settle: resolveSettled });
      return settled;
    });
    outcomes.set(socket, forLater);
    // A database error must not stick to the connection: the next request tries again.
    forLater.then(
      (result) => settledOutcomes.set(socket, result),
      () => outcomes.delete(socket),
    );
    return { outcome, first: true };
  }

  /** Settles an unconfirmed connection for its later requests: admitted, refused, or (a rejection) not decided. */
  function settle(socket: object, result: SettledOutcome | Promise<SettledOutcome>): void {
    const pending = unsettled.get(socket);
    if (!pending) return;
    unsettled.delete(socket);
    if (!(result instanceof Promise) && result.ok) lastRead.set(socket, { row: result.device, version: result.version });
    pending.settle(result);
  }

  function authenticated(row: DeviceRow, fingerprint: string, connection: DeferredConnection | null, admission: GuardedAdmission | null): AuthenticatedDevice {
    return { row, organizationId: row.organizationId, prn: resourcePrn(row.organizationId, 'device', row.id), certificateFingerprint: fingerprint, connection, admission };
  }

  /** A later request's admission left for its check's write to prove, with the full way when it cannot. */
  function guardedAdmission(request: FastifyRequest, read: RowRead, fingerprint: string): GuardedAdmission {
    const { row, version } = read;
    return {
      guard: { deviceId: row.id, organizationId: row.organizationId, fingerprint, version, caId: null },
      confirm: async () => {
        const readmitted = await readmitDevice(platform, row, fingerprint, false);
        if (!readmitted.ok) return refuse(request, readmitted);
        lastRead.set(request.raw.socket, { row: readmitted.device, version: readmitted.version });
        return readmitted.device;
      },
    };
  }

  /** A reconnecting device's first request, admitted by its check's write, or the full way when that cannot prove it. */
  function provenConnection(request: FastifyRequest, outcome: UnconfirmedConnection, connection: DeferredConnection): GuardedAdmission {
    const socket = request.raw.socket;
    return {
      guard: { deviceId: outcome.device.id, organizationId: outcome.ca.organizationId, fingerprint: outcome.fingerprint, version: outcome.version, caId: outcome.ca.id },
      confirm: async () => {
        const confirming = outcome.confirm(false);
        settle(socket, confirming);
        const confirmed = await confirming;
        if (!confirmed.ok) {
          // A refused connection has nothing to record but its refusal.
          connection.recorded = true;
          return refuse(request, confirmed);
        }
        // The connection's writes are the admitted device's (its certificate may have moved to another since this process remembered it).
        const admitted = confirmed.deferred && deferredConnection(confirmed.deferred);
        if (admitted) {
          connection.writes = admitted.writes;
          connection.admission = admitted.admission;
        }
        return confirmed.device;
      },
    };
  }

  /**
   * Before a speculative first request's answer leaves: its outcome for the connection's later
   * requests. Proven when its check recorded the connection; else (the route wrote nothing)
   * admitted now with the connection's writes, or refused, which is recorded.
   */
  async function settleUnconfirmed(request: FastifyRequest, connection: DeferredConnection): Promise<void> {
    const socket = request.raw.socket;
    const pending = unsettled.get(socket)!;
    if (connection.recorded) return settle(socket, admittedAsRemembered(pending.outcome));
    const confirming = pending.outcome.confirm(true);
    settle(socket, confirming);
    const confirmed = await confirming;
    if (!confirmed.ok) return recordFailure(request, confirmed);
    connection.recorded = true;
  }

  /** `device.authentication_failed`; a failure to record it is logged, never the request's error. */
  function recordFailure(request: FastifyRequest, failure: DeviceAuthFailure): Promise<void> {
    return failures.failed(failure, request.ip).catch((error) => request.log.error({ err: error }, 'could not record authentication failure'));
  }

  async function refuse(request: FastifyRequest, failure: DeviceAuthFailure): Promise<never> {
    await recordFailure(request, failure);
    throw refusal(failure);
  }

  /**
   * A later request on a connection admitted before: admitted at once (null) when its check's
   * write can prove it, else by the admission statement, which writes last_connected_at when due.
   */
  function admitLater(request: FastifyRequest, connection: AdmittedConnection): Promise<void> | null {
    const socket = request.raw.socket;
    const { fingerprint } = connection;
    const read = lastRead.get(socket) ?? { row: connection.device, version: connection.version };
    const touch = touchDue(read.row.id);
    if (!touch && request.routeOptions.config?.confirmsAdmission === true) {
      request.device = authenticated(read.row, fingerprint, null, guardedAdmission(request, read, fingerprint));
      return null;
    }
    return readmitDevice(platform, read.row, fingerprint, touch).then((admitted) => {
      if (!admitted.ok) return refuse(request, admitted);
      lastRead.set(socket, { row: admitted.device, version: admitted.version });
      request.device = authenticated(admitted.device, fingerprint, null, null);
    });
  }

  /** Any request whose connection's outcome is not settled yet, the first one's included. */
  async function authenticate(request: FastifyRequest): Promise<void> {
    const { outcome, first } = outcomeOf(request);
    const result = await outcome;
    if (!result.ok) {
      if (first) await refuse(request, result);
      throw refusal(result);
    }
    if (isUnconfirmed(result)) {
      const connection = deferredConnection(result.deferred)!;
      request.device = authenticated(result.device, result.fingerprint, connection, provenConnection(request, result, connection));
      return;
    }
    if (!first) return admitLater(request, result) ?? undefined;
    lastRead.set(request.raw.socket, { row: result.device, version: result.version });
    const connection = result.deferred ? deferredConnection(result.deferred) : null;
    request.device = authenticated(result.device, result.fingerprint, connection, null);
  }

  app.decorateRequest('device', null);
  // A callback hook: a kept-alive connection's requests, once its outcome is settled, are
  // admitted without a promise or a turn of the event loop (most of the device API's requests).
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config?.public) return done();
    const settled = settledOutcomes.get(request.raw.socket);
    const pending = settled?.ok ? admitLater(request, settled) : authenticate(request);
    if (!pending) return done();
    pending.then(() => done(), done);
  });

  // The connection's writes the route did not record, written alone before the answer leaves
  // (with a speculative first request's admission, when its check did not prove it).
  app.addHook('onSend', (request, _reply, payload, done) => {
    const connection = request.device?.connection;
    if (!connection) return done(null, payload);
    const written = unsettled.has(request.raw.socket)
      ? settleUnconfirmed(request, connection)
      : connection.recorded
        ? null
        : admitDevice(platform.db, connection.admission).then(() => {
            connection.recorded = true;
          });
    if (!written) return done(null, payload);
    written.then(
      () => done(null, payload),
      (error) => done(error),
    );
  });
}
