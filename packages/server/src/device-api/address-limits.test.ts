import { describe, expect, it } from 'vitest';
import { createOldestFirstPool, createPerKeyLimit } from './address-limits';

describe('createPerKeyLimit', () => {
  it('counts each key up to the limit, and frees a slot on release', () => {
    const limit = createPerKeyLimit(2);
    expect([limit.take('a'), limit.take('a'), limit.take('a')]).toEqual([true, true, false]);
    expect(limit.take('b')).toBe(true);
    expect(limit.count('a')).toBe(2);
    limit.release('a');
    expect(limit.count('a')).toBe(1);
    expect(limit.take('a')).toBe(true);
    limit.release('b');
    limit.release('b'); // one release too many never goes below zero
    expect(limit.count('b')).toBe(0);
    expect([limit.take('b'), limit.take('b'), limit.take('b')]).toEqual([true, true, false]);
  });
});

describe('createOldestFirstPool', () => {
  it('pushes out the oldest item of a key that is full, leaving other keys alone', () => {
    const pool = createOldestFirstPool<string>(2, 100);
    expect(pool.add('a', 'a1')).toEqual([]);
    expect(pool.add('b', 'b1')).toEqual([]);
    expect(pool.add('a', 'a2')).toEqual([]);
    expect(pool.add('a', 'a3')).toEqual(['a1']);
    expect(pool.add('a', 'a4')).toEqual(['a2']);
    expect(pool.sizeOf('a')).toBe(2);
    expect(pool.sizeOf('b')).toBe(1);
    expect(pool.size()).toBe(3);
  });

  it('an item that leaves makes room, so a newer one is not pushed out for it', () => {
    const pool = createOldestFirstPool<string>(2, 100);
    pool.add('a', 'a1');
    pool.add('a', 'a2');
    expect(pool.delete('a1')).toBe(true);
    expect(pool.delete('a1')).toBe(false);
    expect(pool.add('a', 'a3')).toEqual([]);
    expect(pool.add('a', 'a4')).toEqual(['a2']);
  });

  it('pushes out the oldest of all beyond the total, whatever its key', () => {
    const pool = createOldestFirstPool<string>(10, 3);
    pool.add('a', 'a1');
    pool.add('b', 'b1');
    pool.add('c', 'c1');
    expect(pool.add('d', 'd1')).toEqual(['a1']);
    expect(pool.sizeOf('a')).toBe(0);
    expect(pool.add('d', 'd2')).toEqual(['b1']);
    expect(pool.size()).toBe(3);
  });

  it('many silent items from one key cannot keep a new one out: the newest always gets in', () => {
    const pool = createOldestFirstPool<number>(32, 1024);
    for (let i = 0; i < 10_000; i++) pool.add('nat', i);
    expect(pool.add('nat', -1)).toEqual([10_000 - 32]);
    expect(pool.sizeOf('nat')).toBe(32);
    // The device's connection survives until 32 newer ones came from its address.
    for (let i = 0; i < 31; i++) pool.add('nat', 20_000 + i);
    expect(pool.delete(-1)).toBe(true);
  });
});
