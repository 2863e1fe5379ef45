/**
 * Authenticates every device API request by its TLS connection. The chain check and device
 * lookup run once per connection (the outcome is kept on the socket), so keep-alive requests
 * cost one indexed query that confirms the certificate is still registered and the device not
 * archived. Sets `request.device` for the routes (see device-routes.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TLSSocket } from 'node:tls';
import { findDeviceByCertificate, type DeviceRow } from '../certificates/device-certificate-lookup';
import { peerCertificates } from '../certificates/tls-peer';
import { ApiError } from '../http/errors';
import { resourcePrn } from '../http/prn';
import type { Platform } from '../platform';
import { DeviceAuthEvents } from './auth-events';
import { authenticateDevice, type DeviceAuthOutcome } from './authenticate';
import { authFailure, type DeviceAuthFailure } from './failures';
import { monitoredHeaders } from './monitored-headers';

function refusal(failure: DeviceAuthFailure): ApiError {
  const context: Record<string, unknown> = { reason: failure.reason };
  if (failure.detail) context.detail = failure.detail;
  if (failure.position) context.position = failure.position;
  return new ApiError(401, [{ code: 'unauthenticated', context }]);
}

function isTlsSocket(socket: unknown): socket is TLSSocket {
  return typeof (socket as TLSSocket | undefined)?.getPeerCertificate === 'function';
}

export function installDeviceAuthentication(app: FastifyInstance, platform: Platform): void {
  const events = new DeviceAuthEvents(platform);
  const outcomes = new WeakMap<object, Promise<DeviceAuthOutcome>>();

  /** The connection's outcome, and whether this request is the one that computed it. */
  function outcomeOf(request: FastifyRequest): { outcome: Promise<DeviceAuthOutcome>; first: boolean } {
    const socket = request.raw.socket;
    const known = outcomes.get(socket);
    if (known) return { outcome: known, first: false };
    const peer = isTlsSocket(socket) ? peerCertificates(socket) : { leaf: undefined, intermediates: [] };
    const outcome = authenticateDevice(platform, peer);
    outcomes.set(socket, outcome);
    // A database error must not stick to the connection: the next request tries again.
    outcome.catch(() => outcomes.delete(socket));
    return { outcome, first: true };
  }

  /** Later requests on a connection: the certificate may have been deleted, the device archived. */
  async function stillAdmitted(device: DeviceRow, fingerprint: string): Promise<DeviceRow | DeviceAuthFailure> {
    const current = await findDeviceByCertificate(platform.db, fingerprint, device.id);
    const facts = { organizationId: device.organizationId, devicePrn: resourcePrn(device.organizationId, 'device', device.id), fingerprint };
    if (!current) return authFailure('certificate_not_registered', facts);
    if (current.device.archived) return authFailure('device_is_archived', facts);
    return current.device;
  }

  app.decorateRequest('device', null);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.public) return;
    const { outcome, first } = outcomeOf(request);
    const result = await outcome;
    if (!result.ok) {
      if (first) await events.failed(result, request.ip).catch((error) => request.log.error({ err: error }, 'could not record authentication failure'));
      throw refusal(result);
    }
    const admitted = first ? result.device : await stillAdmitted(result.device, result.fingerprint);
    if ('ok' in admitted) {
      await events.failed(admitted, request.ip).catch((error) => request.log.error({ err: error }, 'could not record authentication failure'));
      throw refusal(admitted);
    }
    const device = first
      ? await events.connected(admitted, result.fingerprint, request.ip, monitoredHeaders(request.headers))
      : await events.seen(admitted);
    request.device = {
      row: device,
      organizationId: device.organizationId,
      prn: resourcePrn(device.organizationId, 'device', device.id),
      certificateFingerprint: result.fingerprint,
    };
  });
}
