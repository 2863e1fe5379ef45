/**
 * Whether `meta.conf.ed25519` is an Ed25519 signature of `meta.conf` by one of the
 * organization's signing keys (their `value`: base64 of the raw 32-byte public key). Answers the
 * key that verified, or null. Pure apart from node:crypto.
 */
import { createPublicKey, verify } from 'node:crypto';
import { ED25519_RAW_LENGTH, ED25519_SPKI_PREFIX } from '../signing-keys/ed25519';

export interface CandidateKey {
  id: string;
  value: string;
}

export function verifyingKey(metaConf: Buffer, signature: Buffer | null, keys: readonly CandidateKey[]): CandidateKey | null {
  if (signature === null || signature.length !== 64) return null;
  for (const key of keys) {
    const raw = Buffer.from(key.value, 'base64');
    if (raw.length !== ED25519_RAW_LENGTH) continue;
    const publicKey = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
    if (verify(null, metaConf, publicKey, signature)) return key;
  }
  return null;
}
