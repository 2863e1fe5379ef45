/**
 * Ed25519 public keys as signing keys hold them
 * (site/docs/canopy-core/reference/binary-management/index.md, "Signing key"): `value` is the
 * standard base64 of the raw 32-byte key; a PEM SPKI is accepted on input and normalised to it.
 * `keyid` is the lowercase hex SHA-256 of the raw key, so one key has one id however it was sent.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

/** The DER SPKI header of an Ed25519 public key (RFC 8410); the raw 32 bytes follow it. */
export const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
export const ED25519_RAW_LENGTH = 32;

/** Strict standard base64 of exactly 32 bytes: 43 characters and one `=`. */
const RAW_BASE64 = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

function fromRaw(raw: Buffer): KeyObject {
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/** The raw 32-byte key, or null when the text is neither form of an Ed25519 public key. */
export function parseEd25519PublicKey(text: string): Buffer | null {
  const trimmed = text.trim();
  try {
    if (trimmed.startsWith('-----BEGIN')) {
      const key = createPublicKey({ key: trimmed, format: 'pem' });
      if (key.asymmetricKeyType !== 'ed25519') return null;
      return key.export({ format: 'der', type: 'spki' }).subarray(ED25519_SPKI_PREFIX.length);
    }
    if (!RAW_BASE64.test(trimmed)) return null;
    const raw = Buffer.from(trimmed, 'base64');
    // OpenSSL is the judge of whether these bytes are an Ed25519 key, not our length check.
    return fromRaw(raw).asymmetricKeyType === 'ed25519' ? raw : null;
  } catch {
    return null;
  }
}

export function keyIdOf(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex');
}

/** The stored base64 form back to a PEM SPKI, for manifests (`public_value`). */
export function rawBase64ToPem(value: string): string {
  return fromRaw(Buffer.from(value, 'base64')).export({ format: 'pem', type: 'spki' }).toString();
}
