/**
 * Admitting a device on its connection (connection-auth.ts calls these):
 *
 *  - `admitConnection`, on a connection's first request: who the certificate authenticates
 *    (authenticate.ts), then the admission statement (admissions.ts) that confirms it and records
 *    `device.connected`. A chain verified before whose device is remembered (verified-chains.ts)
 *    goes straight to that statement: a reconnecting device costs one statement, shared with the
 *    other requests of the moment, before its request runs. If the database does not confirm the
 *    remembered device, the connection goes the full way, which finds the reason or the device.
 *  - `readmitDevice`, on every later request: the same statement without the event.
 */
import { chainKey, verifiedChains, type ChainKey } from '../certificates/verified-chains';
import type { PeerCertificates } from '../certificates/tls-peer';
import type { DeviceRow } from '../certificates/device-certificate-lookup';
import { resourcePrn } from '../http/prn';
import type { Platform } from '../platform';
import { admitDevice, type AdmissionResult } from './admissions';
import { connectedEvent } from './auth-events';
import { authenticateDevice, type AdmittingCa, type DeviceAuthOutcome } from './authenticate';
import { authFailure, type DeviceAuthFailure } from './failures';

/** What the connection's first request tells about the visit, for `device.connected`. */
export interface Visit {
  ip: string;
  headers: Record<string, string>;
}

/** Whether to write last_connected_at for this device now (a per-process throttle). */
export type TouchDue = (deviceId: string) => boolean;

export interface AdmittedDevice {
  ok: true;
  device: DeviceRow;
  fingerprint: string;
}

function admitted(device: { id: string; organizationId: string }, ca: AdmittingCa, fingerprint: string, visit: Visit, touchDue: TouchDue) {
  return {
    deviceId: device.id,
    organizationId: ca.organizationId,
    fingerprint,
    caId: ca.id,
    touch: touchDue(device.id),
    event: connectedEvent(device, fingerprint, visit.ip, visit.headers),
  };
}

function refusal(result: Extract<AdmissionResult, { admitted: false }>, device: { id: string; organizationId: string }, fingerprint: string, caPrn: string | null): DeviceAuthFailure {
  return authFailure(result.reason, { organizationId: device.organizationId, devicePrn: resourcePrn(device.organizationId, 'device', device.id), caPrn, fingerprint });
}

export async function admitConnection(platform: Platform, peer: PeerCertificates, visit: Visit, touchDue: TouchDue): Promise<DeviceAuthOutcome> {
  const key: ChainKey | null = peer.leaf ? chainKey(peer.leaf, peer.intermediates) : null;
  const known = key ? verifiedChains.get(key) : null;
  if (key && known?.deviceId) {
    const device = { id: known.deviceId, organizationId: known.ca.organizationId };
    const result = await admitDevice(platform.db, admitted(device, known.ca, key.leafFingerprint, visit, touchDue));
    if (result.admitted) return { ok: true, device: result.device, fingerprint: key.leafFingerprint, via: 'registered_certificate', ca: known.ca };
    verifiedChains.rememberDevice(key, null);
  }
  const outcome = await authenticateDevice(platform, peer);
  if (!outcome.ok) return outcome;
  const result = await admitDevice(platform.db, admitted(outcome.device, outcome.ca, outcome.fingerprint, visit, touchDue));
  // Refused here only when the device changed between the two statements (archived, say).
  if (!result.admitted) return refusal(result, outcome.device, outcome.fingerprint, outcome.ca.prn);
  if (key) verifiedChains.rememberDevice(key, result.device.id);
  return { ...outcome, device: result.device };
}

/** A later request on an admitted connection: its certificate may have been deleted, its device archived. */
export async function readmitDevice(platform: Platform, device: DeviceRow, fingerprint: string, touchDue: TouchDue): Promise<AdmittedDevice | DeviceAuthFailure> {
  const result = await admitDevice(platform.db, { deviceId: device.id, organizationId: device.organizationId, fingerprint, caId: null, touch: touchDue(device.id), event: null });
  if (!result.admitted) return refusal(result, device, fingerprint, null);
  return { ok: true, device: result.device, fingerprint };
}
