import { describe, expect, it } from 'vitest';
import { makeIntermediateCa, makeLeafCertificate, makeRootCa } from '../../test/support/certificates';
import { summarizeCertificate } from './pem';
import { chainKey, VerifiedChainCache, verifiedChainOf, type VerifiedChain } from './verified-chains';

const HOUR = 3_600_000;

function entry(fingerprint: string, caId: string, validFrom = new Date(Date.now() - HOUR), validUntil = new Date(Date.now() + HOUR)): VerifiedChain {
  return { ca: { id: caId, organizationId: 'org', prn: `prn:${caId}` }, leafSummary: { fingerprintSha256: fingerprint } as VerifiedChain['leafSummary'], validFrom, validUntil };
}

describe('chainKey', () => {
  it('tells chains apart by every certificate, and names the leaf by its stored fingerprint', async () => {
    const root = await makeRootCa();
    const intermediate = await makeIntermediateCa(root);
    const leaf = await makeLeafCertificate(intermediate, 'dev-key');
    const alone = chainKey(leaf.cert, []);
    const withIntermediate = chainKey(leaf.cert, [intermediate.cert]);
    expect(alone.leafFingerprint).toBe(summarizeCertificate(leaf.cert).fingerprintSha256);
    expect(withIntermediate.leafFingerprint).toBe(alone.leafFingerprint);
    expect(withIntermediate.key).not.toBe(alone.key);
    expect(chainKey(leaf.cert, [intermediate.cert, root.cert]).key).not.toBe(withIntermediate.key);
  });
});

describe('verifiedChainOf', () => {
  it('is valid only while every certificate of the chain is', async () => {
    // The intermediate ends first, the leaf starts last.
    const root = await makeRootCa({ notBefore: new Date(Date.now() - 3 * HOUR), notAfter: new Date(Date.now() + 30 * 24 * HOUR) });
    const intermediate = await makeIntermediateCa(root, { notBefore: new Date(Date.now() - 2 * HOUR), notAfter: new Date(Date.now() + 20 * 24 * HOUR) });
    const leaf = await makeLeafCertificate(intermediate, 'dev-window', { notBefore: new Date(Date.now() - HOUR) });
    const chain = verifiedChainOf({ ca: { id: 'ca', organizationId: 'org', prn: 'prn', certificate: root.cert }, leafSummary: summarizeCertificate(leaf.cert), intermediates: [intermediate.cert] });
    expect(chain.validUntil).toEqual(summarizeCertificate(intermediate.cert).notAfter);
    expect(chain.validFrom).toEqual(summarizeCertificate(leaf.cert).notBefore);
  });
});

describe('VerifiedChainCache', () => {
  const key = (name: string) => ({ leafFingerprint: name, key: name });

  it('answers nothing outside the validity window, and forgets that entry', () => {
    const cache = new VerifiedChainCache();
    cache.set(key('a'), entry('a', 'ca1', new Date(Date.now() - 2 * HOUR), new Date(Date.now() - HOUR)));
    expect(cache.get(key('a'))).toBeNull();
    expect(cache.size).toBe(0);
    cache.set(key('b'), entry('b', 'ca1', new Date(Date.now() + HOUR), new Date(Date.now() + 2 * HOUR)));
    expect(cache.get(key('b'))).toBeNull();
  });

  it('keeps at most its bound, dropping the least recently used', () => {
    const cache = new VerifiedChainCache(2);
    cache.set(key('a'), entry('a', 'ca1'));
    cache.set(key('b'), entry('b', 'ca1'));
    expect(cache.get(key('a'))).not.toBeNull();
    cache.set(key('c'), entry('c', 'ca1'));
    expect(cache.size).toBe(2);
    expect(cache.get(key('b'))).toBeNull();
    expect(cache.get(key('a'))?.leafSummary.fingerprintSha256).toBe('a');
    expect(cache.get(key('c'))).not.toBeNull();
  });

  it('forgets the chains of a deleted CA or device certificate', () => {
    const cache = new VerifiedChainCache();
    cache.set(key('a'), entry('a', 'ca1'));
    cache.set({ leafFingerprint: 'a', key: 'a/with-intermediate' }, entry('a', 'ca2'));
    cache.set(key('b'), entry('b', 'ca1'));
    cache.set(key('c'), entry('c', 'ca2'));
    cache.forgetCa('ca1');
    expect([cache.get(key('a')), cache.get(key('b'))]).toEqual([null, null]);
    cache.forgetLeaf('a');
    expect(cache.get({ leafFingerprint: 'a', key: 'a/with-intermediate' })).toBeNull();
    expect(cache.get(key('c'))).not.toBeNull();
  });
});
