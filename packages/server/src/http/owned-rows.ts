/**
 * The two queries every organization-owned resource repeats: one row by prn, and one keyset
 * page of rows. Every table here has `id`, `organization_id` and `inserted_at`, and a prn of the
 * wrong type or of another organization finds nothing, exactly like a missing row.
 */
import { and, eq, getTableName, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../db/connection';
import { invalidField, notFound } from './errors';
import { combine, keyset, pageRequest, toPage, type ListQuery, type PageRequest } from './pagination';
import { resourceIdFromPrn, type PrnType } from './prn';
import { searchCondition, type SearchFields } from './search';

export type OwnedTable = PgTable & { id: PgColumn; organizationId: PgColumn; insertedAt: PgColumn };

export interface Prepared {
  execute(values: Record<string, unknown>): Promise<unknown[]>;
}

/**
 * Prepared queries, one per executor and shape. Building a drizzle query costs more than running
 * these, and they run on nearly every request (one row by id; a plain page of a list).
 */
const preparedQueries = new WeakMap<object, Map<string, Prepared>>();

export function prepared(db: Executor, name: string, build: () => { prepare(name: string): unknown }): Prepared {
  let byName = preparedQueries.get(db);
  if (!byName) {
    byName = new Map();
    preparedQueries.set(db, byName);
  }
  let query = byName.get(name);
  if (!query) {
    query = build().prepare(name) as Prepared;
    byName.set(name, query);
  }
  return query;
}

function byIdInOrganization(table: OwnedTable) {
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

export async function listOwnedRows<T extends OwnedTable>(
  db: Executor,
  table: T,
  organizationId: string,
  query: ListQuery,
  search: ListSearch,
  ...conditions: (SQL | undefined)[]
): Promise<{ items: T['$inferSelect'][]; nextPage: string | null }> {
  const page = pageRequest(query);
  const searched = typeof search === 'function' ? search(query.search) : searchCondition(query.search, search);
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
  const shape = `list_owned_${getTableName(table)}_${page.order}${page.after ? '_after' : ''}`;
  const query = prepared(db, shape, () => {
    const placeholderPage: PageRequest = { ...page, after: page.after ? { insertedAt: sql.placeholder('afterInsertedAt') as never, id: sql.placeholder('afterId') as never } : null };
    const { where, orderBy } = keyset(table, placeholderPage);
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
