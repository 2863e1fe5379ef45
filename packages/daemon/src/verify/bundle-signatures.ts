/**
 * Whether the bundle a device is offered carries enough bundle signatures by the keys it
 * trusts (`bundle_signature_threshold` distinct keys; 0: not checked). A bundle signature covers
 * the bundle's prn and every manifest entry's binary, target, size and hash in order
 * (@canopy/sdk bundle-signing.ts), so the server cannot swap, add, drop or reorder binaries of
 * a signed bundle. Checked before any byte is downloaded; like binary signatures, the key the
 * server names beside each signature is never trusted.
 */
import { verifyBundleSignature, type SignedBinary } from '@canopy/sdk/device';
import type { SignatureVerdict, SigningKey } from './signatures.ts';

export interface OfferedBundle {
  bundle_prn: string;
  entries: readonly SignedBinary[];
  signatures: readonly { signature: string }[];
}

export function checkBundleSignatures(offered: OfferedBundle, trusted: readonly SigningKey[], threshold: number): SignatureVerdict {
  if (threshold <= 0) return { ok: true, keys: [] };
  const binaries = offered.entries.map(({ binary_prn, target, size, hash }) => ({ binary_prn, target, size, hash }));
  const signedBy = new Set<string>();
  for (const { signature } of offered.signatures) {
    for (const { id, key } of trusted) {
      if (!signedBy.has(id) && verifyBundleSignature(key, offered.bundle_prn, binaries, signature)) signedBy.add(id);
    }
  }
  if (signedBy.size >= threshold) return { ok: true, keys: [...signedBy] };
  const prefix = 'bundle signature check failed: ';
  if (offered.signatures.length === 0) return { ok: false, reason: `${prefix}the bundle carries no bundle signature, ${threshold} required` };
  if (signedBy.size === 0) return { ok: false, reason: `${prefix}no bundle signature by a trusted key matches the offered binaries` };
  return { ok: false, reason: `${prefix}signed by ${signedBy.size} trusted key${signedBy.size === 1 ? '' : 's'}, ${threshold} required` };
}
