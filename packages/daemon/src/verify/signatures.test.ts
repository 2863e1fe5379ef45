import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkSignatures, type SigningKey } from './signatures.ts';

const hash = 'ab'.repeat(32);
const pair = (id: string) => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { trusted: { id, key: publicKey } as SigningKey, sign: (h: string) => sign(null, Buffer.from(h, 'ascii'), privateKey).toString('hex') };
};
const [a, b, c] = [pair('a'), pair('b'), pair('c')];
// The server's claimed key (never trusted: only the configured keys count).
const sig = (signature: string) => ({ signature, signing_key_prn: 'prn:1:x:signing_key:y', public_value: 'claimed' });

describe('checkSignatures', () => {
  it('accepts one trusted signature at the default threshold, in any hex case', () => {
    expect(checkSignatures(hash, [sig(a.sign(hash).toUpperCase())], [a.trusted, b.trusted], 1)).toEqual({ ok: true, keys: ['a'] });
  });

  it('refuses a signature by a key it does not trust, whatever the manifest claims', () => {
    expect(checkSignatures(hash, [{ ...sig(c.sign(hash)), public_value: 'anything' }], [a.trusted], 1)).toEqual({ ok: false, reason: 'no signature by a trusted key' });
  });

  it('counts distinct trusted keys for the threshold', () => {
    const twice = [sig(a.sign(hash)), sig(a.sign(hash))];
    expect(checkSignatures(hash, twice, [a.trusted, b.trusted], 2)).toEqual({ ok: false, reason: 'signed by 1 trusted key, 2 required' });
    // The same key configured twice (one id) still counts once.
    expect(checkSignatures(hash, twice, [a.trusted, { ...a.trusted }], 2).ok).toBe(false);
    expect(checkSignatures(hash, [sig(a.sign(hash)), sig(b.sign(hash))], [a.trusted, b.trusted], 2)).toEqual({ ok: true, keys: ['a', 'b'] });
  });

  it('refuses a signature over another hash, malformed signatures and none at all', () => {
    expect(checkSignatures(hash, [sig(a.sign('cd'.repeat(32)))], [a.trusted], 1).ok).toBe(false);
    expect(checkSignatures(hash, [sig('zz'), sig(a.sign(hash).slice(2))], [a.trusted], 1).ok).toBe(false);
    expect(checkSignatures(hash, [], [a.trusted], 1)).toEqual({ ok: false, reason: 'binary is not signed' });
  });
});
