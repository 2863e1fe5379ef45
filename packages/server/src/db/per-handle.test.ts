import { describe, expect, it } from 'vitest';
import { PerHandle } from './per-handle';

describe('PerHandle', () => {
  it('makes a value once per handle and key, and keeps handles apart', () => {
    const values = new PerHandle<string, { made: number }>();
    let made = 0;
    const make = () => ({ made: ++made });
    const first = {};
    const second = {};
    expect(values.get(first, 'a', make)).toBe(values.get(first, 'a', make));
    expect(values.get(first, 'b', make)).not.toBe(values.get(first, 'a', make));
    expect(values.get(second, 'a', make)).not.toBe(values.get(first, 'a', make));
    expect(made).toBe(3);
  });
});
