/**
 * The two queries every organization-owned resource repeats: one row by prn, and one keyset
 * page of rows. Every table here has `id`, `organization_id` and `inserted_at`, and a prn of the
 * wrong type or of another organization finds nothing, exactly like a missing row.
 */
import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../db/connection';
import { invalidField, notFound } from './errors';
import { combine, keyset, pageRequest, toPage, type ListQuery } from './pagination';
import { resourceIdFromPrn, type PrnType } from './prn';
import { searchCondition, type SearchFields } from './search';

export type OwnedTable = PgTable & { id: PgColumn; organizationId: PgColumn; insertedAt: PgColumn };

export async function findOwnedRow<T extends OwnedTable>(db: Executor, table: T, type: PrnType, organizationId: string, prn: unknown): Promise<T['$inferSelect'] | null> {
  const id = resourceIdFromPrn(prn, type, organizationId);
  if (!id) return null;
  const rows = await db
    .select()
    .from(table as PgTable)
    .where(and(eq(table.id, id), eq(table.organizationId, organizationId)))
    .limit(1);
  return (rows[0] as T['$inferSelect'] | undefined) ?? null;
}

/** Like findOwnedRow, but a prn that finds nothing is 404, or 422 `not_found` on `field` when one is given. */
export async function requireOwnedRow<T extends OwnedTable>(db: Executor, table: T, type: PrnType, organizationId: string, prn: string, field?: string): Promise<T['$inferSelect']> {
  const row = await findOwnedRow(db, table, type, organizationId, prn);
  if (!row) throw field ? invalidField(field, 'not_found') : notFound(type, prn);
  return row;
}

/**
 * A list's `search`: the fields the shared compiler understands, or a function for a list whose
 * search language goes beyond them (devices' `tags`) that turns the raw value into a condition.
 */
export type ListSearch = SearchFields | ((rawQueryValue: unknown) => SQL | undefined);

export async function listOwnedRows<T extends OwnedTable>(
  db: Executor,
  table: T,
  organizationId: string,
  query: ListQuery,
  search: ListSearch,
  ...conditions: (SQL | undefined)[]
): Promise<{ items: T['$inferSelect'][]; nextPage: string | null }> {
  const page = pageRequest(query);
  const { where, orderBy } = keyset(table, page);
  const searched = typeof search === 'function' ? search(query.search) : searchCondition(query.search, search);
  const rows = await db
    .select()
    .from(table as PgTable)
    .where(combine(eq(table.organizationId, organizationId), where, searched, ...conditions))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows as (T['$inferSelect'] & { insertedAt: string; id: string })[], page);
}
