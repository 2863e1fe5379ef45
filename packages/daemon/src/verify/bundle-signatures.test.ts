import { generateKeyPairSync } from 'node:crypto';
import { signBundle } from '@canopy/sdk/bundle-signing';
import { describe, expect, it } from 'vitest';
import { checkBundleSignatures } from './bundle-signatures.ts';
import type { SigningKey } from './signatures.ts';

const bundle_prn = 'prn:1:00000000-0000-4000-8000-000000000001:bundle:00000000-0000-4000-8000-000000000002';
const entries = [
  { binary_prn: 'prn:1:o:binary:1', target: 'arm', size: 10, hash: 'ab'.repeat(32) },
  { binary_prn: 'prn:1:o:binary:2', target: 'arm', size: 20, hash: 'cd'.repeat(32) },
];
const pair = (id: string) => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return { trusted: { id, key: publicKey } as SigningKey, sign: (e = entries, prn = bundle_prn) => ({ signature: signBundle(pem, prn, e) }) };
};
const [a, b, c] = [pair('a'), pair('b'), pair('c')];

describe('checkBundleSignatures', () => {
  it('checks nothing at threshold 0, so unsigned bundles keep installing', () => {
    expect(checkBundleSignatures({ bundle_prn, entries, signatures: [] }, [a.trusted], 0)).toEqual({ ok: true, keys: [] });
  });

  it('accepts enough distinct trusted keys over the offered binaries', () => {
    expect(checkBundleSignatures({ bundle_prn, entries, signatures: [a.sign(), b.sign()] }, [a.trusted, b.trusted], 2)).toEqual({ ok: true, keys: ['a', 'b'] });
  });

  it('says why it refuses', () => {
    expect(checkBundleSignatures({ bundle_prn, entries, signatures: [] }, [a.trusted], 1).ok).toBe(false);
    expect(checkBundleSignatures({ bundle_prn, entries, signatures: [] }, [a.trusted], 1)).toMatchObject({ reason: 'bundle signature check failed: the bundle carries no bundle signature, 1 required' });
    expect(checkBundleSignatures({ bundle_prn, entries, signatures: [c.sign()] }, [a.trusted], 1)).toMatchObject({ reason: /no bundle signature by a trusted key/ });
    expect(checkBundleSignatures({ bundle_prn, entries, signatures: [a.sign(), a.sign()] }, [a.trusted, b.trusted], 2)).toMatchObject({ reason: /signed by 1 trusted key, 2 required/ });
  });

  it('refuses a manifest whose binaries differ from the signed ones (swapped, reordered, dropped, resized, other bundle)', () => {
    const signed = [a.sign()];
    const refused = (e: typeof entries, prn = bundle_prn) => checkBundleSignatures({ bundle_prn: prn, entries: e, signatures: signed }, [a.trusted], 1).ok;
    expect(refused([...entries].reverse())).toBe(false);
    expect(refused(entries.slice(1))).toBe(false);
    expect(refused([entries[0], { ...entries[1], size: 21 }])).toBe(false);
    expect(refused([entries[0], { ...entries[1], binary_prn: 'prn:1:o:binary:3' }])).toBe(false);
    expect(refused(entries, bundle_prn.replace('0002', '0003'))).toBe(false);
    expect(refused(entries)).toBe(true);
  });
});
