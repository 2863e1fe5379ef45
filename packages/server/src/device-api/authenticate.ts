/**
 * Device authentication, once per TLS connection (connection-auth.ts): who holds this certificate?
 *  1. A registered certificate names its device; its chain must verify against a CA of the
 *     device's own organization (never another's, even with the same key), device not archived.
 *  2. An unregistered certificate must verify against a registered CA of any organization (of a
 *     key registered by several, the oldest registration). A CN naming a device of that
 *     organization is a rotated certificate: added with multi-certificate JITR on, else refused.
 *  3. Otherwise the CA's JITP settings create the device, or the attempt is refused.
 * A chain verified before (verified-chains.ts) skips parsing and signatures: one query confirms
 * that its CA is still registered and finds the device.
 */
import { registeredCaFinder, type RegisteredCaRecord } from '../certificates/ca-lookup';
import { verifyClientCertificateChain } from '../certificates/chain';
import { findDeviceByCertificate, findDeviceByCertificateUnderCa, type DeviceRow } from '../certificates/device-certificate-lookup';
import { insertDeviceCertificate } from '../certificates/device-certificate-service';
import { parseCertificateDer } from '../certificates/pem';
import type { PeerCertificates } from '../certificates/tls-peer';
import { chainKey, verifiedChainOf, verifiedChains, type ChainKey, type VerifiedChain } from '../certificates/verified-chains';
import { findDeviceByIdentifier } from '../devices/identifier-lookup';
import { resourcePrn } from '../core/prn';
import { isUniqueViolation } from '../db/errors';
import type { Platform } from '../platform';
import { authFailure, type DeviceAuthFailure, type FailureFacts } from './failures';
import { provisionDevice } from './jitp-provision';

export interface DeviceAuthSuccess {
  ok: true;
  device: DeviceRow;
  fingerprint: string;
  /** How the device got in on this connection. */
  via: 'registered_certificate' | 'jitp' | 'multi_cert_jitr';
  /** The registered CA the chain verified against. */
  ca: AdmittingCa;
}

/** What a connection's admission needs of the CA that vouched for its device. */
export interface AdmittingCa {
  id: string;
  organizationId: string;
  prn: string;
}

export type DeviceAuthOutcome = DeviceAuthSuccess | DeviceAuthFailure;

const devicePrn = (device: DeviceRow) => resourcePrn(device.organizationId, 'device', device.id);

export async function authenticateDevice(platform: Platform, peer: PeerCertificates): Promise<DeviceAuthOutcome> {
  const key = peer.leaf ? chainKey(peer.leaf, peer.intermediates) : null;
  const known = key && verifiedChains.get(key);
  const admitted = known ? await admitKnownChain(platform, key, known) : null;
  return admitted ?? authenticateAfresh(platform, peer, key);
}

/**
 * A chain verified before: its registered device, admitted or refused as in authenticateAfresh.
 * Null sends the connection the full way: the certificate is not registered (a first contact
 * needs the CA's current JITP settings), or the CA that signed it has been deleted.
 */
async function admitKnownChain(platform: Platform, key: ChainKey, known: VerifiedChain): Promise<DeviceAuthOutcome | null> {
  const { ca, leafSummary } = known;
  const registered = await findDeviceByCertificateUnderCa(platform.db, leafSummary.fingerprintSha256, ca.id);
  if (!registered) return null;
  // The CA is gone, or is not the device's organization's: the full way verifies against its own.
  if (!registered.caRegistered || registered.device.organizationId !== ca.organizationId) {
    verifiedChains.forget(key);
    return null;
  }
  const facts = { organizationId: ca.organizationId, caPrn: ca.prn, fingerprint: leafSummary.fingerprintSha256, commonName: leafSummary.commonName };
  return admitRegistered(registered.device, ca, facts);
}

async function authenticateAfresh(platform: Platform, peer: PeerCertificates, key: ChainKey | null): Promise<DeviceAuthOutcome> {
  const { db } = platform;
  // A registered certificate is vouched for by its device's organization's CAs only.
  const registered = key ? await findDeviceByCertificate(db, key.leafFingerprint) : null;
  const findCaCandidates = registeredCaFinder(db, registered?.device.organizationId);
  const chain = await verifyClientCertificateChain({ leaf: peer.leaf, intermediates: peer.intermediates, findCaCandidates });
  if (chain.ok && key) verifiedChains.set(key, verifiedChainOf(chain));
  const fingerprint = chain.leafSummary?.fingerprintSha256 ?? (registered ? key!.leafFingerprint : null);
  const commonName = chain.leafSummary?.commonName ?? null;

  if (!chain.ok) {
    // A known device or CA gets the event (e.g. its certificate expired); a stranger does not.
    const organizationId = registered?.device.organizationId ?? chain.ca?.organizationId ?? null;
    return authFailure(chain.reason, {
      organizationId,
      devicePrn: registered ? devicePrn(registered.device) : null,
      caPrn: chain.ca?.prn ?? null,
      fingerprint,
      commonName,
      position: chain.position,
    });
  }

  const ca = chain.ca;
  const facts = { organizationId: ca.organizationId, caPrn: ca.prn, fingerprint, commonName };
  if (registered) return admitRegistered(registered.device, ca, facts);
  return firstContact(platform, ca, peer, facts);
}

function admitRegistered(device: DeviceRow, ca: AdmittingCa, facts: FailureFacts & { fingerprint: string | null }): DeviceAuthOutcome {
  // A certificate registered in one organization, issued by another organization's CA: that CA
  // does not vouch for this device.
  if (device.organizationId !== ca.organizationId) {
    return authFailure('unknown_ca', { ...facts, organizationId: device.organizationId, devicePrn: devicePrn(device) });
  }
  return admit(device, facts.fingerprint!, 'registered_certificate', ca, facts);
}

function admit(device: DeviceRow, fingerprint: string, via: DeviceAuthSuccess['via'], ca: AdmittingCa, facts: FailureFacts): DeviceAuthOutcome {
  if (device.archived) return authFailure('device_is_archived', { ...facts, devicePrn: devicePrn(device) });
  return { ok: true, device, fingerprint, via, ca: { id: ca.id, organizationId: ca.organizationId, prn: ca.prn } };
}

/** An unregistered certificate of a registered CA: a rotated certificate or a new device. */
async function firstContact(
  platform: Platform,
  ca: RegisteredCaRecord,
  peer: PeerCertificates,
  facts: { organizationId: string; caPrn: string; fingerprint: string | null; commonName: string | null },
): Promise<DeviceAuthOutcome> {
  const parsed = parseCertificateDer(peer.leaf!.raw);
  if (!parsed.ok) return authFailure('malformed', facts);
  const certificate = parsed.value;
  const fingerprint = certificate.summary.fingerprintSha256;
  const existing = facts.commonName ? await findDeviceByIdentifier(platform.db, ca.organizationId, facts.commonName) : null;

  if (existing) {
    // A concurrent first connection with this same certificate may have just provisioned the
    // device and registered the certificate: then this is that device, not a rotation.
    const justRegistered = await findDeviceByCertificate(platform.db, fingerprint, existing.id);
    if (justRegistered) return admit(justRegistered.device, fingerprint, 'registered_certificate', ca, facts);
    if (existing.archived) return authFailure('device_is_archived', { ...facts, devicePrn: devicePrn(existing) });
    if (!platform.config.multiCertJitr) return authFailure('multi_cert_jitr_disabled', { ...facts, devicePrn: devicePrn(existing) });
    try {
      await insertDeviceCertificate(platform.db, ca.organizationId, existing.id, certificate);
    } catch (error) {
      // A second connection with the same new certificate registered it first: that is fine.
      if (!isUniqueViolation(error)) throw error;
    }
    return admit(existing, fingerprint, 'multi_cert_jitr', ca, facts);
  }

  if (!ca.jitp) return authFailure('jitp_disabled', facts);
  const provisioned = await provisionDevice(platform.db, ca, certificate);
  if (provisioned.ok) return admit(provisioned.device, fingerprint, 'jitp', ca, facts);
  if (provisioned.raced) {
    // Two connections of a new device at once: the other one created it with this certificate.
    const winner = await findDeviceByCertificate(platform.db, fingerprint);
    if (winner && winner.device.organizationId === ca.organizationId) return admit(winner.device, fingerprint, 'registered_certificate', ca, facts);
  }
  return authFailure('jitp_failed', { ...facts, detail: provisioned.detail });
}
