/**
 * Bundle signatures (site/docs/canopy-core/guides/trust/bundle-signatures.md): one Ed25519
 * signature over a canonical text naming the bundle and, in manifest order, each binary a device
 * of a target downloads with its target, size and hash. The server checks signatures with it
 * when they are attached, the CLI signs with it and the daemon verifies a manifest with it, so
 * the message is defined here only. Pure Node crypto: the daemon bundles it.
 */
import { createPrivateKey, sign, verify, type KeyObject } from 'node:crypto';

export const BUNDLE_SIGNATURE_HEADER = 'canopy-bundle-signature-v1';

/** One binary of the bundle as a manifest entry shows it. */
export interface SignedBinary {
  binary_prn: string;
  target: string;
  size: number;
  hash: string;
}

/** Printable ASCII without spaces: prns and targets are written as is, so none may hold a separator. */
const TOKEN = /^[\x21-\x7e]{1,256}$/;

function token(value: unknown, what: string): string {
  if (typeof value !== 'string' || !TOKEN.test(value)) throw new Error(`${what} must be 1 to 256 printable ASCII characters without spaces`);
  return value;
}

/**
 * The signed bytes, ASCII, every line ending in LF:
 *   canopy-bundle-signature-v1
 *   bundle <bundle prn>
 *   binary <binary prn> <target> <size in decimal> <lowercase hex sha256>   (one per binary, in order)
 * Throws for a value that cannot be written unambiguously (a space in a target, a bad hash).
 */
export function bundleSignatureMessage(bundlePrn: string, binaries: readonly SignedBinary[]): Buffer {
  const lines = [BUNDLE_SIGNATURE_HEADER, `bundle ${token(bundlePrn, 'bundle prn')}`];
  for (const [i, b] of binaries.entries()) {
    const hash = typeof b.hash === 'string' ? b.hash.toLowerCase() : '';
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`binaries[${i}].hash must be 64 hex characters (SHA-256)`);
    if (!Number.isSafeInteger(b.size) || b.size < 0) throw new Error(`binaries[${i}].size must be a non-negative integer`);
    lines.push(`binary ${token(b.binary_prn, `binaries[${i}].binary_prn`)} ${token(b.target, `binaries[${i}].target`)} ${b.size} ${hash}`);
  }
  return Buffer.from(`${lines.join('\n')}\n`, 'ascii');
}

/** Signs a bundle's binaries; answers the 128-character lowercase hex signature. */
export function signBundle(privateKeyPem: string, bundlePrn: string, binaries: readonly SignedBinary[]): string {
  return sign(null, bundleSignatureMessage(bundlePrn, binaries), createPrivateKey(privateKeyPem)).toString('hex');
}

/** True when `signatureHex` is `key`'s signature of the bundle's binaries; false for anything malformed. */
export function verifyBundleSignature(key: KeyObject, bundlePrn: string, binaries: readonly SignedBinary[], signatureHex: string): boolean {
  if (typeof signatureHex !== 'string' || !/^[0-9a-fA-F]{128}$/.test(signatureHex)) return false;
  let message: Buffer;
  try {
    message = bundleSignatureMessage(bundlePrn, binaries);
  } catch {
    return false;
  }
  return verify(null, message, key, Buffer.from(signatureHex, 'hex'));
}
