/**
 * WireGuard keys: X25519, written as standard base64 of the raw 32 bytes (what `wg genkey` and
 * `wg pubkey` print). Node exports X25519 keys only as DER/JWK, so the raw bytes come from the JWK.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';

export interface WireguardKeyPair {
  privateKey: string;
  publicKey: string;
}

/** PKCS#8 DER header of an X25519 private key; the raw 32 bytes follow it. */
const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

const jwkBytes = (value: string | undefined) => Buffer.from(value ?? '', 'base64url').toString('base64');

export function generateWireguardKeyPair(): WireguardKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return { privateKey: jwkBytes(privateKey.export({ format: 'jwk' }).d), publicKey: jwkBytes(publicKey.export({ format: 'jwk' }).x) };
}

/** The public key of a base64 private key, as `wg pubkey` computes it. */
export function wireguardPublicKeyOf(privateKey: string): string {
  const der = Buffer.concat([PKCS8_X25519_PREFIX, Buffer.from(privateKey, 'base64')]);
  return jwkBytes(createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' }).x);
}

/** Canonical base64 of exactly 32 bytes (44 characters ending in one `=`). */
export function isWireguardKey(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/.test(value) && Buffer.from(value, 'base64').length === 32;
}
