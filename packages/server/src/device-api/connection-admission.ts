/**
 * Admitting a device on its connection (connection-auth.ts calls these): `admitConnection` on a
 * connection's first request (authenticate, then the admission statement that confirms the device
 * and records `device.connected`), `readmitDevice` on a later one (the same statement without the
 * event). Both answer the device row's version. `deferWrites` hands the connection's writes to the
 * route; `speculate` skips the statement for a remembered device, whose route's write proves it.
 * Why: docs/decisions/004-device-connection-admission.md.
 */
import { chainKey, verifiedChains, type ChainKey, type RowRead, type VerifiedChain } from '../certificates/verified-chains';
import type { PeerCertificates } from '../certificates/tls-peer';
import type { DeviceRow } from '../certificates/device-certificate-lookup';
import { resourcePrn } from '../core/prn';
import type { PendingConnectionWrites } from '../admission/port';
import type { Platform } from '../platform';
import { admitDevice, type Admission, type AdmissionResult } from './admissions';
import { summarizeCertificate } from '../certificates/pem';
import { connectedEvent, type ConnectionFacts } from './auth-events';
import { authenticateDevice, type AdmittingCa, type DeviceAuthSuccess } from './authenticate';
import { authFailure, type DeviceAuthFailure } from './failures';

/** What the connection's first request tells about the visit, for `device.connected`. */
export interface Visit {
  ip: string;
  /** The first request's path, without its query string. */
  route: string;
  headers: Record<string, string>;
}

/** Whether to write last_connected_at for this device now (a per-process throttle). */
export type TouchDue = (deviceId: string) => boolean;

export interface AdmittedDevice {
  ok: true;
  device: DeviceRow;
  fingerprint: string;
  /** The device row's version as read (admissions.ts AdmissionResult). */
  version: string;
}

function admissionOf(device: DeviceRow, ca: AdmittingCa, chain: PresentedChain, fingerprint: string, visit: Visit, touchDue: TouchDue): Admission {
  return {
    deviceId: device.id,
    organizationId: ca.organizationId,
    fingerprint,
    caId: ca.id,
    touch: touchDue(device.id),
    event: connectedEvent({ ...device, organizationId: ca.organizationId }, connectionFacts(chain, fingerprint, visit)),
  };
}

/**
 * The certificate facts of `device.connected`, from what the chain check already summarised
 * (verified-chains.ts keeps the leaf's summary and the CA's name and fingerprint): no parsing on
 * the request path, once per connection.
 */
function connectionFacts(chain: PresentedChain, fingerprint: string, visit: Visit): ConnectionFacts {
  const verified = chain.known ?? (chain.key ? verifiedChains.get(chain.key) : null);
  const leaf = verified?.leafSummary ?? (chain.peer.leaf ? summarizeCertificate(chain.peer.leaf) : null);
  const ca = verified?.caCertificate;
  return {
    ip: visit.ip,
    route: visit.route,
    headers: visit.headers,
    certificate: { authority_key_identifier: leaf?.authorityKeyIdentifier ?? null, common_name: leaf?.commonName ?? null, fingerprint },
    ca_certificate: ca ? { common_name: ca.commonName, fingerprint: ca.fingerprint } : null,
  };
}

/**
 * A first request's connection writes, deferred: the route's statement records `writes` (and
 * sets `recorded`), or `admission` is written alone before the answer leaves (connection-auth.ts).
 */
export interface DeferredConnection extends PendingConnectionWrites {
  admission: Admission;
}

/** A connection admitted, with the row's version and, when deferred, the writes still to be recorded. */
export type AdmittedConnection = DeviceAuthSuccess & { version: string; deferred?: Admission };

/**
 * A connection whose admission its first request's check is to prove (`speculate`): the device
 * row as this process last admitted it, and that row's version. `confirm` admits it the full way
 * when the check's write cannot prove it: the connection's writes deferred, or, `withWrites`, in
 * the admission statement (the route recorded nothing).
 */
export interface UnconfirmedConnection extends DeviceAuthSuccess {
  version: string;
  deferred: Admission;
  unconfirmed: true;
  confirm(withWrites: boolean): Promise<AdmittedConnection | DeviceAuthFailure>;
}

/** A new connection's outcome. */
export type ConnectionOutcome = DeviceAuthFailure | AdmittedConnection | UnconfirmedConnection;

export function isUnconfirmed(outcome: ConnectionOutcome): outcome is UnconfirmedConnection {
  return 'unconfirmed' in outcome;
}

/** An unconfirmed connection its check's write proved: admitted as the row remembered. */
export function admittedAsRemembered(outcome: UnconfirmedConnection): AdmittedConnection {
  const { deferred: _deferred, unconfirmed: _unconfirmed, confirm: _confirm, ...admitted } = outcome;
  return admitted;
}

export interface ConnectionOptions {
  /** The first request's route records the connection's writes in its own statement. */
  deferWrites: boolean;
  /** It also proves the admission with that statement (see above); needs deferWrites. */
  speculate: boolean;
}

/** The admission statement for `admission`: with its writes, or only its checks when they are deferred. */
async function admitWith(platform: Platform, admission: Admission, deferWrites: boolean): Promise<AdmissionResult> {
  return admitDevice(platform.db, deferWrites ? { ...admission, touch: false, event: null } : admission);
}

function refusal(result: Extract<AdmissionResult, { admitted: false }>, device: { id: string; organizationId: string }, fingerprint: string, caPrn: string | null): DeviceAuthFailure {
  return authFailure(result.reason, { organizationId: device.organizationId, devicePrn: resourcePrn(device.organizationId, 'device', device.id), caPrn, fingerprint });
}

const UNDEFERRED: ConnectionOptions = { deferWrites: false, speculate: false };

export async function admitConnection(platform: Platform, peer: PeerCertificates, visit: Visit, touchDue: TouchDue, options = UNDEFERRED): Promise<ConnectionOutcome> {
  const key = peer.leaf ? chainKey(peer.leaf, peer.intermediates) : null;
  const chain: PresentedChain = { peer, key, known: key ? verifiedChains.get(key) : null };
  const remembered = chain.known?.device;
  if (options.speculate && options.deferWrites && key && chain.known && remembered) {
    const { ca } = chain.known;
    const admission = admissionOf(remembered.row, ca, chain, key.leafFingerprint, visit, touchDue);
    if (!admission.touch) {
      const confirm = (withWrites: boolean) => admitFully(platform, chain, visit, () => false, !withWrites);
      return { ok: true, device: remembered.row, version: remembered.version, fingerprint: key.leafFingerprint, via: 'registered_certificate', ca, deferred: admission, unconfirmed: true, confirm };
    }
    // last_connected_at is due: this request's admission writes it (the throttle said so once).
    return admitFully(platform, chain, visit, () => true, options.deferWrites);
  }
  return admitFully(platform, chain, visit, touchDue, options.deferWrites);
}

/** The certificates a connection presented, the key of their chain, and what this process remembers of it. */
interface PresentedChain {
  peer: PeerCertificates;
  key: ChainKey | null;
  known: VerifiedChain | null;
}

async function admitFully(platform: Platform, chain: PresentedChain, visit: Visit, touchDue: TouchDue, deferWrites: boolean): Promise<AdmittedConnection | DeviceAuthFailure> {
  const { peer, key, known } = chain;
  const deferred = (admission: Admission) => (deferWrites ? { deferred: admission } : {});
  const remember = (read: RowRead) => key && verifiedChains.rememberDevice(key, read);
  if (key && known?.device) {
    const admission = admissionOf(known.device.row, known.ca, chain, key.leafFingerprint, visit, touchDue);
    const result = await admitWith(platform, admission, deferWrites);
    if (result.admitted) {
      remember({ row: result.device, version: result.version });
      return { ok: true, device: result.device, version: result.version, fingerprint: key.leafFingerprint, via: 'registered_certificate', ca: known.ca, ...deferred(admission) };
    }
    verifiedChains.rememberDevice(key, null);
  }
  const outcome = await authenticateDevice(platform, peer);
  if (!outcome.ok) return outcome;
  const admission = admissionOf(outcome.device, outcome.ca, chain, outcome.fingerprint, visit, touchDue);
  const result = await admitWith(platform, admission, deferWrites);
  // Refused here only when the device changed between the two statements (archived, say).
  if (!result.admitted) return refusal(result, outcome.device, outcome.fingerprint, outcome.ca.prn);
  remember({ row: result.device, version: result.version });
  return { ...outcome, device: result.device, version: result.version, ...deferred(admission) };
}

/**
 * A later request on an admitted connection: its certificate may have been deleted, its device
 * archived. `touch`: last_connected_at is due (TouchDue said so).
 */
export async function readmitDevice(platform: Platform, device: DeviceRow, fingerprint: string, touch: boolean): Promise<AdmittedDevice | DeviceAuthFailure> {
  const result = await admitDevice(platform.db, { deviceId: device.id, organizationId: device.organizationId, fingerprint, caId: null, touch, event: null });
  if (!result.admitted) return refusal(result, device, fingerprint, null);
  return { ok: true, device: result.device, fingerprint, version: result.version };
}
