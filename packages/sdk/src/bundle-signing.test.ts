import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bundleSignatureMessage, signBundle, verifyBundleSignature, type SignedBinary } from './bundle-signing';

const BUNDLE = 'prn:1:8c6a1f1e-0000-4000-8000-000000000001:bundle:5f0e7a3c-0000-4000-8000-000000000002';
const binaries: SignedBinary[] = [
  { binary_prn: 'prn:1:8c6a1f1e-0000-4000-8000-000000000001:binary:aa', target: 'aarch64-unknown-linux-gnu', size: 1024, hash: 'AB'.repeat(32) },
  { binary_prn: 'prn:1:8c6a1f1e-0000-4000-8000-000000000001:binary:bb', target: 'aarch64-unknown-linux-gnu', size: 0, hash: 'cd'.repeat(32) },
];

describe('bundle signature message', () => {
  it('is the documented text, hashes lowercased, one LF-terminated line per binary in order', () => {
    expect(bundleSignatureMessage(BUNDLE, binaries).toString('ascii')).toBe(
      'canopy-bundle-signature-v1\n' +
        `bundle ${BUNDLE}\n` +
        `binary ${binaries[0].binary_prn} aarch64-unknown-linux-gnu 1024 ${'ab'.repeat(32)}\n` +
        `binary ${binaries[1].binary_prn} aarch64-unknown-linux-gnu 0 ${'cd'.repeat(32)}\n`,
    );
  });

  it('refuses values that would make the text ambiguous', () => {
    expect(() => bundleSignatureMessage(BUNDLE, [{ ...binaries[0], target: 'arm linux' }])).toThrow(/target/);
    expect(() => bundleSignatureMessage(BUNDLE, [{ ...binaries[0], target: 'arm\nbinary x' }])).toThrow(/target/);
    expect(() => bundleSignatureMessage(BUNDLE, [{ ...binaries[0], hash: 'ab' }])).toThrow(/hash/);
    expect(() => bundleSignatureMessage(BUNDLE, [{ ...binaries[0], size: 1.5 }])).toThrow(/size/);
  });

  it('verifies the signed order and contents only', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const signature = signBundle(pem, BUNDLE, binaries);
    expect(signature).toMatch(/^[0-9a-f]{128}$/);
    expect(verifyBundleSignature(publicKey, BUNDLE, binaries, signature.toUpperCase())).toBe(true);
    expect(verifyBundleSignature(publicKey, BUNDLE, [...binaries].reverse(), signature)).toBe(false);
    expect(verifyBundleSignature(publicKey, BUNDLE, binaries.slice(0, 1), signature)).toBe(false);
    expect(verifyBundleSignature(publicKey, BUNDLE, [{ ...binaries[0], size: 1025 }, binaries[1]], signature)).toBe(false);
    expect(verifyBundleSignature(publicKey, BUNDLE.replace('0002', '0003'), binaries, signature)).toBe(false);
    const other = createPublicKey(generateKeyPairSync('ed25519').privateKey);
    expect(verifyBundleSignature(other, BUNDLE, binaries, signature)).toBe(false);
    expect(verifyBundleSignature(publicKey, BUNDLE, binaries, 'zz')).toBe(false);
  });
});
