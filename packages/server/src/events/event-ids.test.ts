import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUuid } from '../core/prn';
import { newEventId } from './event-ids';

/** The 48-bit millisecond timestamp an id begins with. */
const timestampOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

describe('event ids', () => {
  it('are lower-case UUIDs of version 7 and the RFC 9562 variant, starting with the time they were made', () => {
    const now = Date.now();
    const id = newEventId(now);
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
    expect(timestampOf(id)).toBeGreaterThanOrEqual(now);
    expect(timestampOf(id)).toBeLessThan(now + 2);
  });

  it('only ever increase, within one millisecond, when the clock moves on and when it goes back', () => {
    const start = Date.now() + 10;
    const times = [start, start, start, start + 1, start - 50, start - 50, start + 2, start + 3];
    const ids = times.map((t) => newEventId(t));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // A clock that went back does not take the ids' time back with it.
    expect(timestampOf(ids[4])).toBe(start + 1);
  });

  it('move their time on by a millisecond when one millisecond has more ids than the counter holds', () => {
    const now = Date.now() + 100;
    const ids = Array.from({ length: 5000 }, () => newEventId(now));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(timestampOf(ids[0])).toBe(now);
    expect(timestampOf(ids.at(-1)!)).toBeGreaterThan(now);
    expect(timestampOf(ids.at(-1)!)).toBeLessThanOrEqual(now + 2);
  });

  it('are distinct and increasing for any sequence of clock readings', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 200 }), (offsets) => {
        const base = Date.now() + 10_000;
        const ids = offsets.map((offset) => newEventId(base + offset));
        return ids.every((id, i) => i === 0 || id > ids[i - 1]) && ids.every((id) => isUuid(id) && id[14] === '7');
      }),
    );
  });
});
