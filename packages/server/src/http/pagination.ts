/**
 * List queries: `limit` 1..100 (default 10), `order` asc|desc by inserted_at (default desc),
 * `page` an opaque keyset cursor. `listPage` runs one keyset query (limit + 1 rows, so the
 * next cursor is known without a count) for any table with `inserted_at` and `id`.
 */
import { and, asc, desc, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { Type } from 'typebox';
import { decodeCursor, encodeCursor, type Cursor } from '../core/cursor';
import { parameterError } from './errors';

export const LIST_QUERY_PROPERTIES = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Items per page, 1 to 100.', examples: [10] })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc', description: 'Sort by inserted_at, ascending or descending.' })),
  page: Type.Optional(Type.String({ maxLength: 200, description: 'The `next_page` cursor of the previous page.' })),
  search: Type.Optional(Type.String({ maxLength: 2000, description: "Search clauses, e.g. `name-'gateway' and inserted_at>='2025-01-01T00:00:00Z'`." })),
};

export interface ListQuery {
  limit?: number;
  order?: 'asc' | 'desc';
  page?: string;
  search?: string;
}

export interface PageRequest {
  limit: number;
  order: 'asc' | 'desc';
  after: Cursor | null;
}

export function pageRequest(query: ListQuery): PageRequest {
  let after: Cursor | null = null;
  if (query.page !== undefined && query.page !== '') {
    after = decodeCursor(query.page);
    if (!after) throw parameterError('page', 'invalid_cursor');
  }
  return { limit: query.limit ?? 10, order: query.order ?? 'desc', after };
}

export interface KeysetColumns {
  insertedAt: PgColumn;
  id: PgColumn;
}

/** The WHERE part that continues after the cursor, and the ORDER BY for the page. */
export function keyset(columns: KeysetColumns, page: PageRequest): { where: SQL | undefined; orderBy: SQL[] } {
  const where = page.after
    ? page.order === 'desc'
      ? sql`(${columns.insertedAt}, ${columns.id}) < (${page.after.insertedAt}::timestamptz, ${page.after.id}::uuid)`
      : sql`(${columns.insertedAt}, ${columns.id}) > (${page.after.insertedAt}::timestamptz, ${page.after.id}::uuid)`
    : undefined;
  const direction = page.order === 'desc' ? desc : asc;
  return { where, orderBy: [direction(columns.insertedAt), direction(columns.id)] };
}

/** Cuts the limit + 1 fetched rows to a page and makes the cursor for the next one. */
export function toPage<Row extends { insertedAt: string; id: string }>(rows: Row[], page: PageRequest): { items: Row[]; nextPage: string | null } {
  if (rows.length <= page.limit) return { items: rows, nextPage: null };
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  return { items, nextPage: encodeCursor({ insertedAt: last.insertedAt, id: last.id }) };
}

export function combine(...conditions: (SQL | undefined)[]): SQL | undefined {
  return and(...conditions.filter((c): c is SQL => c !== undefined));
}
