/**
 * Keyset pagination cursors: the opaque `page` parameter is base64url of the last row's sort
 * key (inserted_at, as the database's microsecond text) and its id as tie-breaker. Never an
 * OFFSET, so pages stay stable while rows are inserted.
 */
export interface Cursor {
  insertedAt: string;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}(:?\d{2})?)?$/;

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.insertedAt, cursor.id]), 'utf8').toString('base64url');
}

/** null for anything that is not a cursor this server made. Never throws. */
export function decodeCursor(value: string): Cursor | null {
  if (value.length === 0 || value.length > 200 || !/^[A-Za-z0-9_-]+$/.test(value)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return null;
  const [insertedAt, id] = parsed;
  if (typeof insertedAt !== 'string' || typeof id !== 'string') return null;
  if (!TIMESTAMP.test(insertedAt) || !UUID.test(id) || !isRealTimestamp(insertedAt)) return null;
  return { insertedAt, id };
}

/**
 * The regular expression admits `0000-00-00 99:99:99` and `2024-02-30`, which the database
 * refuses with an error: the date and time must exist, in years PostgreSQL and JavaScript share.
 */
function isRealTimestamp(text: string): boolean {
  const [year, month, day, hour, minute, second] = text.match(/\d+/g)!.slice(0, 6).map(Number);
  if (year < 1 || hour > 23 || minute > 59 || second > 59) return false;
  // PostgreSQL refuses an offset of more than 15:59 hours ("time zone displacement out of range").
  const offset = /[+-](\d{2}):?(\d{2})?$/.exec(text.slice(19));
  if (offset && (Number(offset[1]) > 15 || Number(offset[2] ?? 0) > 59)) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
