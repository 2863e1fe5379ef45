/**
 * TUF keys as the server, the CLI and the daemon make and use them: Ed25519, the public key as
 * hex in `keyval.public`, the keyid the SHA-256 of the key's canonical JSON (TUF spec 4.2).
 * Formats and verification are @tufjs/models'; this only creates keys and signs with them.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { canonicalize } from '@tufjs/canonical-json';
import { Key, Signature } from '@tufjs/models';

export interface TufKeyPair {
  key: Key;
  /** PKCS#8 PEM of the private key: what the CLI writes to a local file, the server seals. */
  privatePem: string;
}

/** The TUF key of an Ed25519 public key. */
export function tufKeyOf(publicKey: KeyObject): Key {
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  const body = { keytype: 'ed25519', scheme: 'ed25519', keyval: { public: raw.toString('hex') } };
  const keyID = createHash('sha256').update(canonicalize(body)).digest('hex');
  return new Key({ keyID, keyType: body.keytype, scheme: body.scheme, keyVal: body.keyval });
}

export function generateTufKey(): TufKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { key: tufKeyOf(publicKey), privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() };
}

/** The pair of a stored private key. */
export function tufKeyFromPrivatePem(privatePem: string): TufKeyPair {
  const privateKey = createPrivateKey(privatePem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`TUF keys here are Ed25519, this one is ${privateKey.asymmetricKeyType}`);
  return { key: tufKeyOf(createPublicKey(privateKey)), privatePem };
}

/** The signer `Metadata.sign` takes: signs the canonical bytes it is given. */
export function tufSigner(pair: TufKeyPair): (data: Buffer) => Signature {
  const privateKey = createPrivateKey(pair.privatePem);
  return (data) => new Signature({ keyID: pair.key.keyID, sig: sign(null, data, privateKey).toString('hex') });
}
