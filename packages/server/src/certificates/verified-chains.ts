/**
 * Chains the device API has verified, remembered by their content: a device reconnects with the
 * same certificates again and again, and parsing them (milliseconds each with @peculiar/x509) and
 * checking signatures answers the same every time. Remembered: what the bytes decide (the signing
 * CA's id, the leaf's summary, the window in which the whole chain is valid) and, as a hint only,
 * the device the leaf was last admitted as, with its row. Whether the CA and the leaf are still
 * registered is asked of the database on every new connection (before the request, or by its
 * update check's write; a wrong hint goes the full way), so a deletion in any process takes
 * effect at once. Deletions in this process also drop their entries here.
 */
import { createHash, type X509Certificate } from 'node:crypto';
import type { DeviceRow } from './device-certificate-lookup';
import { summarizeCertificate, type CertificateSummary } from './pem';

/** A device row as an admission read it, with its version (device-api/admissions.ts AdmissionResult). */
export interface RowRead {
  row: DeviceRow;
  version: string;
}

export interface VerifiedChain {
  ca: { id: string; organizationId: string; prn: string };
  leafSummary: CertificateSummary;
  /** The CA certificate's subject CN and SHA-256 fingerprint (upper-case hex), as `device.connected` names them. */
  caCertificate?: { commonName: string | null; fingerprint: string };
  /** The latest notBefore and earliest notAfter over the leaf, the intermediates and the CA. */
  validFrom: Date;
  validUntil: Date;
  /** The device the leaf was last admitted as in this process, as read then (checked by the database on use). */
  device?: RowRead;
}

/** The leaf's SHA-256 fingerprint (upper-case hex, as stored) and a digest of what followed it. */
export interface ChainKey {
  leafFingerprint: string;
  key: string;
}

export function chainKey(leaf: X509Certificate, intermediates: readonly X509Certificate[]): ChainKey {
  const leafFingerprint = createHash('sha256').update(leaf.raw).digest('hex').toUpperCase();
  if (intermediates.length === 0) return { leafFingerprint, key: leafFingerprint };
  const rest = createHash('sha256');
  // Length-prefixed, so no two different lists of certificates hash the same bytes.
  for (const { raw } of intermediates) rest.update(`${raw.length}:`).update(raw);
  return { leafFingerprint, key: `${leafFingerprint}/${rest.digest('hex')}` };
}

/** What to remember of a chain verifyClientCertificateChain accepted. */
export function verifiedChainOf(chain: {
  ca: { id: string; organizationId: string; prn: string; certificate: X509Certificate };
  leafSummary: CertificateSummary;
  intermediates: readonly X509Certificate[];
}): VerifiedChain {
  // The chain check summarised each of these already (cached per object in pem.ts).
  const summaries = [chain.leafSummary, ...[...chain.intermediates, chain.ca.certificate].map(summarizeCertificate)];
  const caSummary = summaries[summaries.length - 1];
  return {
    ca: { id: chain.ca.id, organizationId: chain.ca.organizationId, prn: chain.ca.prn },
    leafSummary: chain.leafSummary,
    caCertificate: { commonName: caSummary.commonName, fingerprint: caSummary.fingerprintSha256 },
    validFrom: new Date(Math.max(...summaries.map((s) => s.notBefore.getTime()))),
    validUntil: new Date(Math.min(...summaries.map((s) => s.notAfter.getTime()))),
  };
}

// About 1 KiB each: a few tens of MB at most, for fleets far beyond one process's connections.
const DEFAULT_MAX_ENTRIES = 50_000;

export class VerifiedChainCache {
  // A Map iterates in insertion order: re-inserting on use makes the first key the least recent.
  private readonly entries = new Map<string, VerifiedChain>();

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  get size(): number {
    return this.entries.size;
  }

  /** The chain's verification, unless unknown or outside its validity window at `now`. */
  get(key: ChainKey, now = new Date()): VerifiedChain | null {
    const entry = this.entries.get(key.key);
    if (!entry) return null;
    this.entries.delete(key.key);
    // Expired (or not yet valid): verify again, so the refusal names the certificate at fault.
    if (now < entry.validFrom || now > entry.validUntil) return null;
    this.entries.set(key.key, entry);
    return entry;
  }

  set(key: ChainKey, entry: VerifiedChain): void {
    this.entries.delete(key.key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key.key, entry);
  }

  /** Remembers (or, with null, forgets) the device a chain's leaf was admitted as. */
  rememberDevice(key: ChainKey, device: RowRead | null): void {
    const entry = this.entries.get(key.key);
    if (!entry) return;
    if (device === null) delete entry.device;
    else entry.device = device;
  }

  /** Forgets one chain, e.g. after the database no longer knows its CA. */
  forget(key: ChainKey): void {
    this.entries.delete(key.key);
  }

  /** A CA certificate was deleted: forget every chain it anchored. */
  forgetCa(caId: string): void {
    for (const [key, entry] of this.entries) if (entry.ca.id === caId) this.entries.delete(key);
  }

  /** A device certificate was deleted: forget its chains. */
  forgetLeaf(fingerprint: string): void {
    for (const [key, entry] of this.entries) if (entry.leafSummary.fingerprintSha256 === fingerprint) this.entries.delete(key);
  }
}

/** The process's cache: the device API reads it, the admin services that delete certificates prune it. */
export const verifiedChains = new VerifiedChainCache();
