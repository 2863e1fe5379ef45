/** Ed25519 and ECDSA P-256 keys for certificates, as WebCrypto keys (what @peculiar/x509 signs with) and PEM files. */
import { createPrivateKey, webcrypto } from 'node:crypto';
import { UsageError } from '../../errors';

export type KeyAlgorithm = 'ed25519' | 'ecdsa-p256';
export const KEY_ALGORITHMS: readonly KeyAlgorithm[] = ['ed25519', 'ecdsa-p256'];

const subtle = webcrypto.subtle as unknown as SubtleCrypto;

export function generationAlgorithm(algorithm: KeyAlgorithm): EcKeyGenParams | Algorithm {
  return algorithm === 'ed25519' ? { name: 'Ed25519' } : { name: 'ECDSA', namedCurve: 'P-256' };
}

/** The certificate signature algorithm for a key of this kind. */
export function signingAlgorithm(algorithm: KeyAlgorithm): Algorithm | EcdsaParams {
  return algorithm === 'ed25519' ? { name: 'Ed25519' } : { name: 'ECDSA', hash: 'SHA-256' };
}

export async function generateKeys(algorithm: KeyAlgorithm): Promise<CryptoKeyPair> {
  return (await subtle.generateKey(generationAlgorithm(algorithm) as EcKeyGenParams, true, ['sign', 'verify'])) as CryptoKeyPair;
}

export async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').trimEnd()}\n-----END PRIVATE KEY-----\n`;
}

/** Loads a PEM private key (PKCS#8, SEC1 or any form Node reads) as a WebCrypto signing key. */
export async function importPrivateKey(pem: string): Promise<{ key: CryptoKey; algorithm: KeyAlgorithm }> {
  const keyObject = createPrivateKey(pem);
  let algorithm: KeyAlgorithm;
  if (keyObject.asymmetricKeyType === 'ed25519') algorithm = 'ed25519';
  else if (keyObject.asymmetricKeyType === 'ec' && keyObject.asymmetricKeyDetails?.namedCurve === 'prime256v1') algorithm = 'ecdsa-p256';
  else throw new UsageError(`CA key must be Ed25519 or ECDSA P-256, not ${keyObject.asymmetricKeyType}`);
  const der = keyObject.export({ format: 'der', type: 'pkcs8' });
  const key = await subtle.importKey('pkcs8', der, generationAlgorithm(algorithm) as EcKeyImportParams, false, ['sign']);
  return { key, algorithm };
}
