/**
 * Ed25519 binary signatures (site/docs/canopy-core/reference/binary-management/index.md, "Binary
 * signature"): the message is the ASCII of the lowercase hex SHA-256 of the binary (64 bytes),
 * the signature goes on the wire as 128 hex characters, and a signing key's `value` is the
 * standard base64 of the raw 32-byte public key.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

export interface Ed25519KeyPair {
  /** PKCS#8 PEM. */
  privateKeyPem: string;
  /** SPKI PEM. */
  publicKeyPem: string;
  /** Base64 of the raw 32-byte public key: the signing key `value` the API stores. */
  publicKeyValue: string;
  /** Lowercase hex SHA-256 of the raw public key, as the server computes `keyid`. */
  keyid: string;
}

/** The last 32 bytes of an Ed25519 SPKI DER are the raw key. */
function rawPublicKey(key: KeyObject): Buffer {
  const der = key.export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

export function describePublicKey(publicKey: KeyObject): Pick<Ed25519KeyPair, 'publicKeyPem' | 'publicKeyValue' | 'keyid'> {
  const raw = rawPublicKey(publicKey);
  return {
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    publicKeyValue: raw.toString('base64'),
    keyid: createHash('sha256').update(raw).digest('hex'),
  };
}

export function generateSigningKeyPair(): Ed25519KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), ...describePublicKey(publicKey) };
}

/** The public half of a stored private key. */
export function keyPairFromPrivatePem(privateKeyPem: string): Ed25519KeyPair {
  const privateKey = createPrivateKey(privateKeyPem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`signing keys are Ed25519, this one is ${privateKey.asymmetricKeyType}`);
  return { privateKeyPem, ...describePublicKey(createPublicKey(privateKey)) };
}

function normalisedHash(hexHash: string): string {
  const hash = hexHash.toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error('a binary hash is 64 hex characters (SHA-256)');
  return hash;
}

/** Signs a binary's hash; answers the 128-character lowercase hex signature. */
export function signBinaryHash(privateKeyPem: string, hexHash: string): string {
  return sign(null, Buffer.from(normalisedHash(hexHash), 'ascii'), createPrivateKey(privateKeyPem)).toString('hex');
}

/** Checks a hex signature of a binary hash against a public key (PEM SPKI or base64 raw value). */
export function verifyBinarySignature(publicKey: string, hexHash: string, hexSignature: string): boolean {
  return verify(null, Buffer.from(normalisedHash(hexHash), 'ascii'), signingKeyPublicKey(publicKey), Buffer.from(hexSignature, 'hex'));
}

/**
 * A signing key's `value` as the server stores it (base64 of the raw 32 bytes, or a PEM SPKI) as
 * a public key: `.export({ type: 'spki', format: 'pem' })` is the PEM a device trusts.
 */
export function signingKeyPublicKey(value: string): KeyObject {
  const key = value.includes('BEGIN')
    ? createPublicKey(value)
    : createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(value, 'base64')]), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`signing keys are Ed25519, this one is ${key.asymmetricKeyType}`);
  return key;
}
