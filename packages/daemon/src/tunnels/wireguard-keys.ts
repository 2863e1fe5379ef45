/**
 * A fresh X25519 key pair per tunnel, written as WireGuard writes keys (`wg genkey`/`wg pubkey`):
 * standard base64 of the raw 32 bytes. Node exports X25519 keys as JWK, whose base64url fields
 * are those raw bytes.
 */
import { generateKeyPairSync } from 'node:crypto';

export interface WireguardKeyPair {
  privateKey: string;
  publicKey: string;
}

const rawBase64 = (base64url: string | undefined) => Buffer.from(base64url ?? '', 'base64url').toString('base64');

export function generateWireguardKeyPair(): WireguardKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return { privateKey: rawBase64(privateKey.export({ format: 'jwk' }).d), publicKey: rawBase64(publicKey.export({ format: 'jwk' }).x) };
}
