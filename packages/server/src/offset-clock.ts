/**
 * A clock ahead of (or behind) the wall clock by the seconds a file holds: how a test moves the
 * update check's time in server processes it cannot reach into (maintenance windows, rests),
 * by writing the file. Read at most every 100 ms; a missing or unreadable file counts as 0.
 * Only CANOPY_TEST_CLOCK_OFFSET_FILE turns it on (config.ts); a server never uses it otherwise.
 */
import fs from 'node:fs';

const REREAD_MS = 100;

export function offsetClock(file: string, wall: () => number = Date.now): () => Date {
  let offsetMs = 0;
  let readAt = -Infinity;
  return () => {
    const now = wall();
    if (now - readAt >= REREAD_MS) {
      readAt = now;
      try {
        const seconds = Number(fs.readFileSync(file, 'utf8').trim());
        offsetMs = Number.isFinite(seconds) ? seconds * 1000 : 0;
      } catch {
        offsetMs = 0;
      }
    }
    return new Date(now + offsetMs);
  };
}
