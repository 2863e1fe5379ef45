import { describe, expect, it } from 'vitest';
import { parseDateTime, toRfc3339 } from './time';

describe('timestamps', () => {
  it.each([
    ['2025-06-11 05:04:10.081728+00', '2025-06-11T05:04:10.081728Z'],
    ['2025-06-11 05:04:10.08+00', '2025-06-11T05:04:10.080000Z'],
    ['2025-06-11 05:04:10+00', '2025-06-11T05:04:10.000000Z'],
    ['2025-06-11 07:04:10.5+02', '2025-06-11T05:04:10.500000Z'],
    ['2025-06-11 00:30:00.000001-05:30', '2025-06-11T06:00:00.000001Z'],
  ])('formats %s as %s', (input, expected) => {
    expect(toRfc3339(input)).toBe(expected);
  });

  it('keeps null as null', () => {
    expect(toRfc3339(null)).toBeNull();
  });

  it('accepts real RFC 3339 date-times only', () => {
    expect(parseDateTime('2025-01-01T00:00:00Z')).toBe('2025-01-01T00:00:00Z');
    expect(parseDateTime('2025-01-01T00:00:00.123456+02:00')).toBe('2025-01-01T00:00:00.123456+02:00');
    expect(parseDateTime('2025-02-30T00:00:00Z')).toBeNull();
    expect(parseDateTime('2025-01-01 00:00:00')).toBeNull();
    expect(parseDateTime('yesterday')).toBeNull();
    expect(parseDateTime(42)).toBeNull();
  });
});
