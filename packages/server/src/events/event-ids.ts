/**
 * Event ids: UUID version 7 (RFC 9562 section 5.7), a millisecond timestamp then random bits,
 * not the random version 4 of the other tables. Events are the largest, fastest-growing table,
 * and time-ordered ids land on its primary key's rightmost leaf instead of a random one (the why
 * and the WAL it saves: docs/decisions/012-event-ids-uuid-v7.md).
 *
 * Ids from one process only ever increase (RFC 9562 method 1: a 12-bit counter in `rand_a`, and
 * the timestamp never goes backwards). Events of one statement share `inserted_at` and lists
 * order them by (inserted_at, id), so ids made in the order events happened keep that order.
 */
import { randomFillSync } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
/** Random bytes per id: 2 for the counter's start, 8 for the id's last 8 bytes. */
const SLOT = 10;
/** Random bytes drawn in blocks: one call to the system's generator per 512 ids, not per id. */
const POOL = Buffer.alloc(SLOT * 512);
let poolOffset = POOL.length;
/** The counter's largest value: 12 bits. */
const MAX_COUNTER = 0xfff;

let lastMs = 0;
let counter = 0;

/** The offset in POOL of a new id's SLOT random bytes. */
function randomSlot(): number {
  if (poolOffset === POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const offset = poolOffset;
  poolOffset += SLOT;
  return offset;
}

/**
 * The next timestamp and counter: the clock's millisecond when it moved on (the counter starts
 * from a random value in its lower half, so that ids of one millisecond are not guessable from
 * another's and still leave room to count), otherwise the last one with the counter increased.
 * A counter that runs out moves the timestamp on by one millisecond, ahead of the clock.
 */
function advance(nowMs: number, randomStart: number): void {
  if (nowMs > lastMs) {
    lastMs = nowMs;
    counter = randomStart & 0x7ff;
  } else if (counter < MAX_COUNTER) {
    counter++;
  } else {
    lastMs++;
    counter = 0;
  }
}

/** The id's first 14 characters (`tttttttt-tttt-`), the timestamp's hex, for the millisecond `prefixMs`. */
let prefix = '';
let prefixMs = -1;

function timestampPrefix(ms: number): string {
  if (ms !== prefixMs) {
    // 48 bits: 12 hex digits, exact (a double holds integers to 53 bits).
    const hex = ms.toString(16).padStart(12, '0');
    prefix = `${hex.slice(0, 8)}-${hex.slice(8)}-`;
    prefixMs = ms;
  }
  return prefix;
}

/**
 * A new event id: a lower-case UUID version 7, greater than every id this process made before.
 * Written digit by digit from lookup tables: every update check makes one, and a general
 * byte-array-to-text conversion cost more than the rest of the id.
 */
export function newEventId(nowMs = Date.now()): string {
  const r = randomSlot();
  advance(nowMs, (POOL[r] << 8) | POOL[r + 1]);
  return (
    timestampPrefix(lastMs) +
    // version 7, then the counter's 12 bits
    HEX[0x70 | (counter >>> 8)] +
    HEX[counter & 0xff] +
    '-' +
    // the RFC's variant (binary 10), then random bits
    HEX[0x80 | (POOL[r + 2] & 0x3f)] +
    HEX[POOL[r + 3]] +
    '-' +
    HEX[POOL[r + 4]] +
    HEX[POOL[r + 5]] +
    HEX[POOL[r + 6]] +
    HEX[POOL[r + 7]] +
    HEX[POOL[r + 8]] +
    HEX[POOL[r + 9]]
  );
}
