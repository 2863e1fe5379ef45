/**
 * Authenticates every device API request by its TLS connection and sets `request.device` for the
 * routes (http/device-request.ts). The chain check runs once per connection; each connection's
 * state is one value with explicit transitions (connection-state.ts), keyed by its socket. Routes
 * that say `confirmsAdmission` prove a later request's admission in their own write; routes that
 * say `recordsConnection` write the connection's `device.connected` themselves; what a route does
 * not record is written before its answer leaves. Why: docs/decisions/004-device-connection-admission.md.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TLSSocket } from 'node:tls';
import type { GuardedAdmission } from '../admission/port';
import { peerCertificates } from '../certificates/tls-peer';
import type { RowRead } from '../certificates/verified-chains';
import { LastConnectedThrottle } from '../devices/last-connected';
import type { DeviceRow } from '../devices/schema';
import { resourcePrn } from '../core/prn';
import type { AuthenticatedDevice } from '../http/device-request';
import { ApiError } from '../http/errors';
import type { Platform } from '../platform';
import { DeviceAuthFailureEvents } from './auth-events';
import { admitDevice, type Admission } from './admissions';
import {
  admitConnection,
  admittedAsRemembered,
  isUnconfirmed,
  readmitDevice,
  type AdmittedConnection,
  type DeferredConnection,
  type UnconfirmedConnection,
} from './connection-admission';
import { ConnectionStates, type ConnectionState, type SettledOutcome } from './connection-state';
import { recordDisconnected } from './disconnect-events';
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

/** How long a shutdown waits for the disconnects being recorded. */
const SHUTDOWN_DISCONNECT_WAIT_MS = 5_000;

// Events are stored and delivered by webhook: a hostile path must not bloat them.
const MAX_ROUTE_LENGTH = 256;

/** The request's path as `device.connected` records it: no query string, cut to a sane length. */
function routeOf(url: string): string {
  const query = url.indexOf('?');
  return (query === -1 ? url : url.slice(0, query)).slice(0, MAX_ROUTE_LENGTH);
}

function isTlsSocket(socket: unknown): socket is TLSSocket {
  return typeof (socket as TLSSocket | undefined)?.getPeerX509Certificate === 'function';
}

export function installDeviceAuthentication(app: FastifyInstance, platform: Platform): void {
  const failures = new DeviceAuthFailureEvents(platform);
  const lastConnected = new LastConnectedThrottle();
  const touchDue = (deviceId: string) => lastConnected.due(deviceId);
  /** Each connection's state, by its socket. */
  const states = new ConnectionStates();

  function authenticated(row: DeviceRow, fingerprint: string, connection: DeferredConnection | null, admission: GuardedAdmission<DeviceRow> | null): AuthenticatedDevice {
    return { row, organizationId: row.organizationId, prn: resourcePrn(row.organizationId, 'device', row.id), certificateFingerprint: fingerprint, connection, admission };
  }

  /** A later request's admission left for its check's write to prove, with the full way when it cannot. */
  function guardedAdmission(request: FastifyRequest, read: RowRead, fingerprint: string): GuardedAdmission<DeviceRow> {
    const { row, version } = read;
    return {
      guard: { deviceId: row.id, organizationId: row.organizationId, fingerprint, version, caId: null },
      confirm: async () => {
        const readmitted = await readmitDevice(platform, row, fingerprint, false);
        if (!readmitted.ok) return refuse(request, readmitted);
        states.read(request.raw.socket, { row: readmitted.device, version: readmitted.version });
        return readmitted.device;
      },
    };
  }

  /** A reconnecting device's first request, admitted by its check's write, or the full way when that cannot prove it. */
  function provenConnection(request: FastifyRequest, outcome: UnconfirmedConnection, connection: DeferredConnection): GuardedAdmission<DeviceRow> {
    const socket = request.raw.socket;
    return {
      guard: { deviceId: outcome.device.id, organizationId: outcome.ca.organizationId, fingerprint: outcome.fingerprint, version: outcome.version, caId: outcome.ca.id },
      confirm: async () => {
        const confirming = outcome.confirm(false);
        states.settle(socket, confirming);
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
  async function settleUnconfirmed(request: FastifyRequest, pending: UnconfirmedConnection, connection: DeferredConnection): Promise<void> {
    const socket = request.raw.socket;
    if (connection.recorded) return states.settle(socket, admittedAsRemembered(pending));
    const confirming = pending.confirm(true);
    states.settle(socket, confirming);
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
   * `read`: the device row the connection last read.
   */
  function admitLater(request: FastifyRequest, connection: AdmittedConnection, read: RowRead): Promise<void> | null {
    const socket = request.raw.socket;
    const { fingerprint } = connection;
    const touch = touchDue(read.row.id);
    if (!touch && request.routeOptions.config?.confirmsAdmission === true) {
      request.device = authenticated(read.row, fingerprint, null, guardedAdmission(request, read, fingerprint));
      return null;
    }
    return readmitDevice(platform, read.row, fingerprint, touch).then((admitted) => {
      if (!admitted.ok) return refuse(request, admitted);
      states.read(socket, { row: admitted.device, version: admitted.version });
      request.device = authenticated(admitted.device, fingerprint, null, null);
    });
  }

  /** The row a later request is admitted on: the one its connection last read. */
  function lastReadOf(socket: object, connection: AdmittedConnection): RowRead {
    const state = states.get(socket);
    return state?.kind === 'admitted' ? state.lastRead : { row: connection.device, version: connection.version };
  }

  /** Sockets whose close records `device.disconnected` once admitted (a retried first request must not watch twice). */
  const watched = new WeakSet<object>();

  /**
   * On the connection's close, `device.disconnected` when it was admitted (disconnect-events.ts):
   * nothing for a refused connection, or one still admitting whose outcome is refused or fails.
   */
  function watchClose(request: FastifyRequest): void {
    const socket = request.raw.socket;
    if (watched.has(socket)) return;
    watched.add(socket);
    const ip = request.ip;
    const openedAt = Date.now();
    socket.once('close', () => {
      const closedAt = Date.now();
      const state = states.get(socket);
      const admitted: Promise<SettledOutcome> | null =
        state === undefined || state.kind === 'refused' ? null : state.kind === 'admitted' ? Promise.resolve(state.connection) : state.settled;
      if (!admitted) return;
      const written = admitted
        .then((outcome) => {
          if (!outcome.ok) return;
          return recordDisconnected(platform, { deviceId: outcome.device.id, organizationId: outcome.device.organizationId, ip, openedAt, closedAt });
        })
        .catch((error) => request.log.error({ err: error }, 'could not record device.disconnected'))
        .finally(() => disconnecting.delete(written));
      disconnecting.add(written);
    });
  }
  /** Disconnects being recorded: a shutdown waits for them before the database closes (server.ts). */
  const disconnecting = new Set<Promise<unknown>>();
  // The server has closed its connections by now (their close handlers ran), so every write is in
  // the set. Bounded: a connection whose first request never settled may never give an outcome.
  app.addHook('onClose', async () => {
    if (disconnecting.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_DISCONNECT_WAIT_MS)));
    await Promise.race([Promise.allSettled([...disconnecting]), bound]);
    clearTimeout(timer);
  });

  /** The connection's first request: it begins the connection's admission (new -> admitting). */
  async function authenticateFirst(request: FastifyRequest): Promise<void> {
    const socket = request.raw.socket;
    const peer = isTlsSocket(socket) ? peerCertificates(socket) : { leaf: undefined, intermediates: [] };
    const config = request.routeOptions.config;
    const deferWrites = config?.recordsConnection === true;
    const options = { deferWrites, speculate: deferWrites && config?.confirmsAdmission === true };
    const outcome = admitConnection(platform, peer, { ip: request.ip, route: routeOf(request.url), headers: monitoredHeaders(request.headers) }, touchDue, options);
    states.begin(socket, outcome);
    watchClose(request);
    const result = await outcome;
    if (!result.ok) return refuse(request, result);
    if (isUnconfirmed(result)) {
      const connection = deferredConnection(result.deferred)!;
      request.device = authenticated(result.device, result.fingerprint, connection, provenConnection(request, result, connection));
      return;
    }
    const connection = result.deferred ? deferredConnection(result.deferred) : null;
    request.device = authenticated(result.device, result.fingerprint, connection, null);
  }

  /** A later request on a connection whose outcome is not settled yet (admitting, unconfirmed), or refused. */
  async function authenticateLater(request: FastifyRequest, state: Exclude<ConnectionState, { kind: 'admitted' }>): Promise<void> {
    if (state.kind === 'refused') throw refusal(state.failure);
    const result = await state.settled;
    if (!result.ok) throw refusal(result);
    return admitLater(request, result, lastReadOf(request.raw.socket, result)) ?? undefined;
  }

  app.decorateRequest('device', null);
  // A callback hook: a kept-alive connection's requests, once its outcome is settled, are
  // admitted without a promise or a turn of the event loop (most of the device API's requests).
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config?.public) return done();
    const state = states.get(request.raw.socket);
    const pending =
      state === undefined
        ? authenticateFirst(request)
        : state.kind === 'admitted'
          ? admitLater(request, state.connection, state.lastRead)
          : authenticateLater(request, state);
    if (!pending) return done();
    pending.then(() => done(), done);
  });

  // The connection's writes the route did not record, written alone before the answer leaves
  // (with a speculative first request's admission, when its check did not prove it).
  app.addHook('onSend', (request, _reply, payload, done) => {
    // Only this module puts a connection on the request: a DeferredConnection, with its admission.
    const connection = request.device?.connection as DeferredConnection | null | undefined;
    if (!connection) return done(null, payload);
    const state = states.get(request.raw.socket);
    const written =
      state?.kind === 'unconfirmed'
        ? settleUnconfirmed(request, state.outcome, connection)
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
