import { describe, expect, it } from 'vitest';
import { MetadataFetchError } from './device-fetcher.ts';
import { refusalOf, TufRefusal } from './refusal.ts';

class ExpiredMetadataError extends Error {}
class BadVersionError extends Error {}
class UnsignedMetadataError extends Error {}

describe('refusalOf', () => {
  it('names the failed TUF check from tuf-js error classes and our fetcher', () => {
    expect(refusalOf(new ExpiredMetadataError('timestamp.json is expired')).message).toBe('tuf_expired: timestamp.json is expired');
    expect(refusalOf(new BadVersionError('x')).check).toBe('rollback');
    expect(refusalOf(new UnsignedMetadataError('x')).check).toBe('signature');
    expect(refusalOf(new MetadataFetchError('outside', 'http')).check).toBe('fetch');
    expect(refusalOf(new Error('odd')).check).toBe('metadata');
    expect(refusalOf(new Error('Unable to load targets error Error: gateway was signed by 0/1 keys')).check).toBe('signature');
    const own = new TufRefusal('not_in_targets', 'p');
    expect(refusalOf(own)).toBe(own);
  });
});
