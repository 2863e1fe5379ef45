/**
 * Where a live event stream (GET /events/stream) stands, as a pure value: the id it resumes
 * after, and the ids it has already sent inside the late-commit window.
 *
 * Why a window: event ids are UUID version 7 (event-ids.ts), ordered by the millisecond they were
 * made, but an event is only visible once its transaction commits. A transaction that made its
 * id at t and commits at t + 300 ms shows up after events with later ids that committed first
 * (another request, or another server process on the same PostgreSQL). A stream that only asked
 * for "ids after the last one sent" would skip it for ever. So each poll asks again for every id
 * made in the last LATE_COMMIT_WINDOW_MS (never before the stream's own starting point) and
 * leaves out the ids it has already sent.
 */
import { isUuid, parsePrn } from '../core/prn';

/** How long a transaction may take between making an event id and committing it and still be streamed. */
export const LATE_COMMIT_WINDOW_MS = 10_000;

/** The smallest UUID version 7 of millisecond `ms`: every id made at or after `ms` sorts after it. */
export function floorIdAt(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7000-8000-000000000000`;
}

/** The millisecond a UUID version 7 was made in. */
export function idMillisecond(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

export type LastEventId = { kind: 'none' } | { kind: 'resume'; id: string } | { kind: 'invalid' } | { kind: 'other_organization' };

/**
 * The `Last-Event-ID` a client resumes from: the prn of an event of its organization (as the
 * stream sent it). A bare event uuid is accepted too (what a client keeps when it strips the prn).
 */
export function parseLastEventId(raw: string | undefined, organizationId: string): LastEventId {
  if (raw === undefined || raw.trim() === '') return { kind: 'none' };
  const value = raw.trim();
  if (isUuid(value)) return { kind: 'resume', id: value };
  const prn = parsePrn(value);
  if (!prn || prn.kind !== 'resource' || prn.type !== 'event') return { kind: 'invalid' };
  if (prn.organizationId !== organizationId) return { kind: 'other_organization' };
  return { kind: 'resume', id: prn.id };
}

export interface StreamCursor {
  /** Ids at or below this are never asked for again (where the stream started). */
  readonly origin: string;
  /** Ids already sent that are still inside the window, so a re-read does not repeat them. */
  readonly sent: ReadonlySet<string>;
}

/** A stream that starts after `resumeAfter`, or (without one) with the events made from `nowMs` on. */
export function startCursor(resumeAfter: string | null, nowMs: number): StreamCursor {
  return { origin: resumeAfter ?? floorIdAt(nowMs), sent: new Set() };
}

/**
 * The id the next poll reads after. The origin trails the window's start once the stream has
 * caught up (advance), so each poll re-reads the window; while catching up it is the last id read.
 */
export function pollAfter(cursor: StreamCursor): string {
  return cursor.origin;
}

/**
 * Takes the rows of one read (ascending by id, all after pollAfter or after the previous read's
 * last row; `complete` when the read found everything there was): answers the ones not sent yet,
 * and the cursor after sending them. Ids before the window that were read past are settled (the
 * origin moves up to them, or to the window's start after a complete read); ids inside the window
 * are remembered until they leave it.
 */
export function advance<Row extends { id: string }>(cursor: StreamCursor, rows: readonly Row[], complete: boolean, nowMs: number): { fresh: Row[]; cursor: StreamCursor } {
  const fresh = rows.filter((row) => !cursor.sent.has(row.id));
  const windowStart = floorIdAt(nowMs - LATE_COMMIT_WINDOW_MS);
  const sent = new Set<string>();
  for (const id of cursor.sent) if (id > windowStart) sent.add(id);
  for (const row of fresh) if (row.id > windowStart) sent.add(row.id);
  const lastRead = rows.length ? rows[rows.length - 1].id : cursor.origin;
  const settled = complete || lastRead > windowStart ? windowStart : lastRead;
  return { fresh, cursor: { origin: settled > cursor.origin ? settled : cursor.origin, sent } };
}
