import { describe, expect, it } from 'vitest';
import { countOf } from '../../src/ui/count';

describe('countOf', () => {
  it('says one in the singular, every other count in the plural', () => {
    expect(countOf(1, 'device')).toBe('1 device');
    expect(countOf(0, 'device')).toBe('0 devices');
    expect(countOf(2, 'device')).toBe('2 devices');
    expect(countOf(1, 'binary', 'binaries')).toBe('1 binary');
    expect(countOf(3, 'binary', 'binaries')).toBe('3 binaries');
  });
});
