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
    expect(refusalOf(new MetadataFetchError('too long', 'length')).check).toBe('metadata_length');
    expect(refusalOf(new Error('odd')).check).toBe('metadata');
    const own = new TufRefusal('not_in_targets', 'p');
    expect(refusalOf(own)).toBe(own);
  });
});
