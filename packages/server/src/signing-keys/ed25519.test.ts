import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyIdOf, parseEd25519PublicKey, rawBase64ToPem } from './ed25519';

function ed25519Key() {
  const { publicKey } = generateKeyPairSync('ed25519');
  const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  return { pem, raw, base64: raw.toString('base64') };
}

describe('parseEd25519PublicKey', () => {
  it('reads the raw base64 form and the PEM SPKI form as the same key', () => {
    const key = ed25519Key();
    expect(parseEd25519PublicKey(key.base64)).toEqual(key.raw);
    expect(parseEd25519PublicKey(key.pem)).toEqual(key.raw);
  });

  it('refuses other key types, wrong lengths and non-standard base64', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(parseEd25519PublicKey(rsa)).toBeNull();
    expect(parseEd25519PublicKey(Buffer.alloc(31).toString('base64'))).toBeNull();
    expect(parseEd25519PublicKey(Buffer.alloc(33).toString('base64'))).toBeNull();
    expect(parseEd25519PublicKey(ed25519Key().raw.toString('base64url'))).toBeNull();
    expect(parseEd25519PublicKey('-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----')).toBeNull();
    expect(parseEd25519PublicKey('')).toBeNull();
  });
});

describe('keyIdOf and rawBase64ToPem', () => {
  it('gives the lowercase hex SHA-256 of the raw key and the PEM it came from', () => {
    const key = ed25519Key();
    expect(keyIdOf(key.raw)).toMatch(/^[0-9a-f]{64}$/);
    expect(rawBase64ToPem(key.base64)).toBe(key.pem);
  });
});
