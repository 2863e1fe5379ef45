/**
 * Whether a binary is signed by enough of the keys this device trusts. A signature is Ed25519
 * over the ASCII bytes of the lowercase hex SHA-256 (device API reference). Only the configured
 * trusted keys count: the manifest's `public_value` and `signing_key_prn` are the server's claims
 * and are never trusted; each signature is checked against every trusted key, and a key counts
 * once however many signatures it made (`signature_threshold` distinct keys).
 */
import { verify, type KeyObject } from 'node:crypto';
import type { ManifestSignature } from '@canopy/sdk/device';

export interface SigningKey {
  /** Identifies the key: two entries with one id are one key. */
  id: string;
  key: KeyObject;
}

export type SignatureVerdict = { ok: true; keys: string[] } | { ok: false; reason: string };

export function checkSignatures(hashHex: string, signatures: readonly ManifestSignature[], trusted: readonly SigningKey[], threshold: number): SignatureVerdict {
  const message = Buffer.from(hashHex.toLowerCase(), 'ascii');
  const signedBy = new Set<string>();
  for (const { signature } of signatures) {
    if (typeof signature !== 'string' || !/^[0-9a-fA-F]{128}$/.test(signature)) continue;
    const bytes = Buffer.from(signature, 'hex');
    for (const { id, key } of trusted) {
      if (!signedBy.has(id) && verify(null, message, key, bytes)) signedBy.add(id);
    }
  }
  if (signedBy.size >= threshold) return { ok: true, keys: [...signedBy] };
  if (signatures.length === 0) return { ok: false, reason: 'binary is not signed' };
  if (signedBy.size === 0) return { ok: false, reason: 'no signature by a trusted key' };
  return { ok: false, reason: `signed by ${signedBy.size} trusted key${signedBy.size === 1 ? '' : 's'}, ${threshold} required` };
}
