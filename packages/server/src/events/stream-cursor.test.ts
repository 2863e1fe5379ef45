import { describe, expect, it } from 'vitest';
import { newEventId } from './event-ids';
import { advance, floorIdAt, idMillisecond, LATE_COMMIT_WINDOW_MS, parseLastEventId, pollAfter, startCursor } from './stream-cursor';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
/** An id of millisecond `ms` that does not depend on ids this process made before (newEventId's do). */
const idAt = (ms: number) => floorIdAt(ms).slice(0, -1) + '1';

describe('stream cursor', () => {
  it('floors a millisecond below every id made in it', () => {
    const ms = 1_750_000_000_123;
    const id = newEventId(ms);
    expect(idMillisecond(id)).toBeGreaterThanOrEqual(ms);
    expect(floorIdAt(ms) < id).toBe(true);
    expect(floorIdAt(ms + 1) > floorIdAt(ms)).toBe(true);
  });

  it('re-reads the late-commit window but never below where the stream started', () => {
    const now = 1_750_000_000_000;
    const fresh = startCursor(null, now);
    expect(pollAfter(fresh)).toBe(floorIdAt(now));
    // After a complete read the origin trails the window, so the next poll re-reads it.
    const caughtUp = advance(fresh, [], true, now + LATE_COMMIT_WINDOW_MS + 5000).cursor;
    expect(pollAfter(caughtUp)).toBe(floorIdAt(now + 5000));
    const resumed = startCursor(floorIdAt(now - 60_000), now);
    expect(pollAfter(resumed)).toBe(floorIdAt(now - 60_000));
    // A read that filled its limit settles only what it read.
    const partway = { id: floorIdAt(now - 50_000).slice(0, -1) + '1' };
    expect(pollAfter(advance(resumed, [partway], false, now).cursor)).toBe(partway.id);
  });

  it('sends an event that commits late once, and an id already sent never again', () => {
    const now = 1_750_000_000_000;
    let cursor = startCursor(floorIdAt(now - 1000), now);
    const early = { id: idAt(now - 500) };
    const later = { id: idAt(now - 100) };
    // The later one commits first.
    let step = advance(cursor, [later], true, now);
    expect(step.fresh).toEqual([later]);
    cursor = step.cursor;
    step = advance(cursor, [early, later], true, now + 200);
    expect(step.fresh).toEqual([early]);
    cursor = step.cursor;
    step = advance(cursor, [early, later], true, now + 400);
    expect(step.fresh).toEqual([]);
    // Once the window has passed them, the origin moves past them and they are forgotten.
    step = advance(step.cursor, [], true, now + LATE_COMMIT_WINDOW_MS + 1000);
    expect(step.cursor.sent.size).toBe(0);
    expect(step.cursor.origin > later.id).toBe(true);
  });

  it('reads Last-Event-ID as an event prn of the organization (or a bare id)', () => {
    const id = newEventId();
    expect(parseLastEventId(undefined, ORG)).toEqual({ kind: 'none' });
    expect(parseLastEventId(`prn:1:${ORG}:event:${id}`, ORG)).toEqual({ kind: 'resume', id });
    expect(parseLastEventId(id, ORG)).toEqual({ kind: 'resume', id });
    expect(parseLastEventId(`prn:1:${OTHER}:event:${id}`, ORG)).toEqual({ kind: 'other_organization' });
    expect(parseLastEventId(`prn:1:${ORG}:device:${id}`, ORG)).toEqual({ kind: 'invalid' });
    expect(parseLastEventId('garbage', ORG)).toEqual({ kind: 'invalid' });
  });
});
