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
  if (!TIMESTAMP.test(insertedAt) || !UUID.test(id)) return null;
  return { insertedAt, id };
}
