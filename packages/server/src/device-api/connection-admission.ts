/**
 * Admitting a device on its connection (connection-auth.ts calls these):
 *
 *  - `admitConnection`, on a connection's first request: who the certificate authenticates
 *    (authenticate.ts), then the admission statement (admissions.ts) that confirms it and records
 *    `device.connected`. A chain verified before whose device is remembered (verified-chains.ts)
 *    goes straight to that statement: a reconnecting device costs one statement, shared with the
 *    other requests of the moment, before its request runs. If the database does not confirm the
 *    remembered device, the connection goes the full way, which finds the reason or the device.
 *  - `readmitDevice`, on a later request: the same statement without the event (connection-
 *    auth.ts leaves most later update checks to prove their admission in their own write).
 *
 * Both answer the device row's version with it (admissions.ts AdmissionGuard).
 *
 * With `deferWrites` (the first request's route records the connection itself, see
 * connection-auth.ts), the admission statement only reads: the same checks, without the event and
 * last_connected_at, which are handed back (`deferred`) for the route's own statement to write,
 * so the connection costs one commit instead of two.
 *
 * With `speculate` as well (the route also proves the admission with its update check's write,
 * connection-auth.ts), a remembered device is not asked of the database at all: the outcome is
 * `unconfirmed`, the device row as this process last admitted it, for the check to resolve on and
 * its write to prove (admissions.ts AdmissionGuard, with the CA that vouched). So a reconnecting
 * device that asks for an update costs one statement, not two. Whatever its write cannot prove,
 * the outcome's `confirm` admits the full way, as without `speculate`. Not when last_connected_at
 * is due: that write belongs to an admission statement, which answers the row as written.
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
