import { describe, expect, it } from 'vitest';
import { heldBackAfter, holdBackOf, retryDelayMs, type HeldBack } from './hold-back.ts';

const offer = { release_prn: 'prn:r', bundle_prn: 'prn:b' };
const at = '2026-01-01T00:00:00.000Z';
const plus = (seconds: number) => new Date(Date.parse(at) + seconds * 1000);

describe('hold back', () => {
  it('declines an offer that rolled back for as long as the same one is made; a new release or bundle is taken', () => {
    const held = heldBackAfter(null, offer, 'rolled_back', at);
    expect(holdBackOf(held, offer, plus(365 * 86400), 300)).toEqual({ until: null });
    expect(holdBackOf(held, { ...offer, release_prn: 'prn:r2' }, plus(1), 300)).toBeNull();
    expect(holdBackOf(held, { ...offer, bundle_prn: 'prn:b2' }, plus(1), 300)).toBeNull();
  });

  it('retries a failed offer after one poll interval, then 2, 4, ... up to 64, and at most a day', () => {
    expect([1, 2, 3, 7, 8, 20].map((n) => retryDelayMs(n, 10))).toEqual([10_000, 20_000, 40_000, 640_000, 640_000, 640_000]);
    expect(retryDelayMs(7, 3600)).toBe(86_400_000);
    let held: HeldBack | null = null;
    for (let i = 0; i < 3; i++) held = heldBackAfter(held, offer, 'failed', at);
    expect(held!.failures).toBe(3);
    expect(holdBackOf(held, offer, plus(39), 10)).toEqual({ until: plus(40) });
    expect(holdBackOf(held, offer, plus(40), 10)).toBeNull();
  });

  it('counts failures per offer: another offer starts from one', () => {
    const first = heldBackAfter(heldBackAfter(null, offer, 'failed', at), offer, 'failed', at);
    expect(heldBackAfter(first, { ...offer, release_prn: 'prn:r2' }, 'failed', at).failures).toBe(1);
    expect(holdBackOf(null, offer, plus(0), 10)).toBeNull();
  });
});
