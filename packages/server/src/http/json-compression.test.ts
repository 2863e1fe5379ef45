import { describe, expect, it } from 'vitest';
import { negotiateEncoding } from './json-compression';

describe('negotiateEncoding', () => {
  it('prefers brotli, then gzip, and answers uncompressed when neither is acceptable', () => {
    expect(negotiateEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(negotiateEncoding('gzip, deflate')).toBe('gzip');
    expect(negotiateEncoding('deflate')).toBeNull();
    expect(negotiateEncoding('identity')).toBeNull();
    expect(negotiateEncoding(undefined)).toBeNull();
    expect(negotiateEncoding('')).toBeNull();
  });

  it('honours q-values, so q=0 refuses an encoding, and * stands for the ones not named', () => {
    expect(negotiateEncoding('br;q=0, gzip')).toBe('gzip');
    expect(negotiateEncoding('br;q=0, gzip;q=0')).toBeNull();
    expect(negotiateEncoding('GZIP;Q=0.5')).toBe('gzip');
    expect(negotiateEncoding('*')).toBe('br');
    expect(negotiateEncoding('*;q=0, gzip')).toBe('gzip');
    expect(negotiateEncoding('br;q=0, *')).toBe('gzip');
  });

  it('answers only with an encoding on offer, in the order offered', () => {
    expect(negotiateEncoding('gzip, deflate, br', ['gzip'])).toBe('gzip');
    expect(negotiateEncoding('br', ['gzip'])).toBeNull();
    expect(negotiateEncoding('gzip, br', ['gzip', 'br'])).toBe('gzip');
  });
});
