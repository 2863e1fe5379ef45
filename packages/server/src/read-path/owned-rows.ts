/**
 * The two queries every organization-owned resource repeats: one row by prn, and one keyset
 * page of rows. Every table here has `id`, `organization_id` and `inserted_at`, and a prn of the
 * wrong type or of another organization finds nothing, exactly like a missing row.
 */
import { and, eq, getTableName, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../db/connection';
import { invalidField, notFound } from '../http/errors';
import { prepared } from './prepared-queries';
import { combine, keyset, pageRequest, toPage, type ListQuery, type PageRequest } from '../http/pagination';
import { resourceIdFromPrn, type PrnType } from '../core/prn';
import { searchCondition, type SearchFields } from '../search/search';

export type OwnedTable = PgTable & { id: PgColumn; organizationId: PgColumn; insertedAt: PgColumn };

export function byIdInOrganization(table: OwnedTable) {
  return and(eq(table.id, sql.placeholder('id')), eq(table.organizationId, sql.placeholder('organizationId')));
}

export async function findOwnedRow<T extends OwnedTable>(db: Executor, table: T, type: PrnType, organizationId: string, prn: unknown): Promise<T['$inferSelect'] | null> {
  const id = resourceIdFromPrn(prn, type, organizationId);
  if (!id) return null;
  const find = prepared(db, `find_owned_${getTableName(table)}`, () => db.select().from(table as PgTable).where(byIdInOrganization(table)).limit(1));
  const rows = await find.execute({ id, organizationId });
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

/** The condition a list's `search` parameter asks for, or undefined without one. */
export function searchedCondition(search: ListSearch, rawQueryValue: unknown): SQL | undefined {
  return typeof search === 'function' ? search(rawQueryValue) : searchCondition(rawQueryValue, search);
}

/** The page as a prepared query's shape sees it: the cursor's values become placeholders. */
export function placeholderPage(page: PageRequest): PageRequest {
  return { ...page, after: page.after ? { insertedAt: sql.placeholder('afterInsertedAt') as never, id: sql.placeholder('afterId') as never } : null };
}

/** The name of a plain page's prepared query: one per table, order and cursor use. */
export function plainPageShape(prefix: string, table: OwnedTable, page: PageRequest): string {
  return `${prefix}_${getTableName(table)}_${page.order}${page.after ? '_after' : ''}`;
}

export async function listOwnedRows<T extends OwnedTable>(
  db: Executor,
  table: T,
  organizationId: string,
  query: ListQuery,
  search: ListSearch,
  ...conditions: (SQL | undefined)[]
): Promise<{ items: T['$inferSelect'][]; nextPage: string | null }> {
  const page = pageRequest(query);
  const searched = searchedCondition(search, query.search);
  if (!searched && conditions.every((c) => c === undefined)) return plainPage(db, table, organizationId, page);
  const { where, orderBy } = keyset(table, page);
  const rows = await db
    .select()
    .from(table as PgTable)
    .where(combine(eq(table.organizationId, organizationId), where, searched, ...conditions))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows as (T['$inferSelect'] & { insertedAt: string; id: string })[], page);
}

/** A page with no search or filter, the common case: a prepared query per order and cursor use. */
async function plainPage<T extends OwnedTable>(db: Executor, table: T, organizationId: string, page: PageRequest) {
  const query = prepared(db, plainPageShape('list_owned', table, page), () => {
    const { where, orderBy } = keyset(table, placeholderPage(page));
    return db
      .select()
      .from(table as PgTable)
      .where(combine(eq(table.organizationId, sql.placeholder('organizationId')), where))
      .orderBy(...orderBy)
      .limit(sql.placeholder('limit') as never);
  });
  const rows = await query.execute({ organizationId, limit: page.limit + 1, afterInsertedAt: page.after?.insertedAt, afterId: page.after?.id });
  return toPage(rows as (T['$inferSelect'] & { insertedAt: string; id: string })[], page);
}
