/**
 * Ed25519 binary signatures made with WebCrypto, for browsers (Node signs with signing.ts). The
 * message and wire form are signing.ts's: the ASCII of the binary's lowercase hex SHA-256, signed,
 * sent as 128 hex characters. The private key is a PKCS#8 PEM (`openssl genpkey -algorithm
 * ed25519`), imported into the page and never sent anywhere.
 */

export interface WebCryptoSigner {
  /** Standard base64 of the raw 32-byte public key: the `value` of the matching signing key. */
  publicKeyValue: string;
  /** Signs a binary's hash; answers the 128-character lowercase hex signature. */
  signHash(hexHash: string): Promise<string>;
}

/** Refused key files and browsers without Ed25519 in WebCrypto. */
export class SigningKeyFileError extends Error {}

const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

function pkcs8Der(pem: string): Uint8Array<ArrayBuffer> {
  const match = /-----BEGIN PRIVATE KEY-----([\s\S]+?)-----END PRIVATE KEY-----/.exec(pem);
  if (!match) throw new SigningKeyFileError('the key file is not a PKCS#8 private key PEM (BEGIN PRIVATE KEY)');
  const text = atob(match[1].replace(/\s+/g, ''));
  const der = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) der[i] = text.charCodeAt(i);
  return der;
}

/** JWK's base64url to standard base64 (the API's form of a public key). */
const standardBase64 = (base64url: string) => {
  const plain = base64url.replace(/-/g, '+').replace(/_/g, '/');
  return plain + '='.repeat((4 - (plain.length % 4)) % 4);
};

export async function signerFromPrivateKeyPem(pem: string, subtle: SubtleCrypto = globalThis.crypto.subtle): Promise<WebCryptoSigner> {
  const der = pkcs8Der(pem);
  let key: CryptoKey;
  try {
    // Extractable only so the public half can be read (JWK `x`); the key stays in this page.
    key = await subtle.importKey('pkcs8', der, { name: 'Ed25519' }, true, ['sign']);
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'NotSupportedError') throw new SigningKeyFileError('this browser has no Ed25519 in WebCrypto: sign with the CLI and paste the signature');
    throw new SigningKeyFileError('the key file is not an Ed25519 private key');
  }
  const jwk = await subtle.exportKey('jwk', key);
  if (!jwk.x) throw new SigningKeyFileError('the key file has no public half');
  return {
    publicKeyValue: standardBase64(jwk.x),
    async signHash(hexHash: string) {
      const hash = hexHash.toLowerCase();
      if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error('a binary hash is 64 hex characters (SHA-256)');
      return hex(await subtle.sign({ name: 'Ed25519' }, key, new TextEncoder().encode(hash)));
    },
  };
}

/** Whether this browser signs Ed25519 in WebCrypto (Chromium 137+, Firefox 129+, Safari 17+). */
export async function webCryptoHasEd25519(subtle: SubtleCrypto | undefined = globalThis.crypto?.subtle): Promise<boolean> {
  if (!subtle) return false;
  try {
    await subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
    return true;
  } catch {
    return false;
  }
}
