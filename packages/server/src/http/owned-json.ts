/**
 * owned-rows.ts's two queries (one row by prn, one keyset page) answering the resource's wire
 * JSON as text, built by the database from a wire projection (wire-json.ts). A read route sends
 * that text as it is (json-reply.ts): no row parsing, mapping or serialising per request.
 * Semantics match owned-rows.ts exactly: same conditions, order, limit and cursors.
 */
import { eq, getTableName, sql, type SQL } from 'drizzle-orm';
import type { TObject } from 'typebox';
import type { Executor } from '../db/connection';
import { encodeCursor } from './cursor';
import { notFound } from './errors';
import { byIdInOrganization, placeholderPage, plainPageShape, searchedCondition, type ListSearch, type OwnedTable } from './owned-rows';
import { combine, keyset, pageRequest, type ListQuery, type PageRequest } from './pagination';
import { prepared } from './prepared-queries';
import { resourceIdFromPrn, type PrnType } from './prn';
import { wireProjection, type WireColumns } from './wire-json';

/** A table, its prn type and the projection that writes its rows' wire JSON. */
export interface WireSource {
  table: OwnedTable;
  type: PrnType;
  /** `table, lateral (...) "wire"`: a FROM list where row_to_json("wire") is the wire object. */
  from: SQL;
}

export function wireSource(table: OwnedTable, type: PrnType, item: TObject, columns: WireColumns): WireSource {
  return { table, type, from: sql`${table}, lateral ${wireProjection(item, columns)} "wire"` };
}

const WIRE_JSON = sql<string>`row_to_json("wire")::text`;

/** The wire JSON of the row a prn names in the organization, or null (see findOwnedRow). */
export async function findOwnedJson(db: Executor, source: WireSource, organizationId: string, prn: unknown): Promise<string | null> {
  const id = resourceIdFromPrn(prn, source.type, organizationId);
  if (!id) return null;
  const find = prepared(db, `find_json_${getTableName(source.table)}`, () =>
    db.select({ json: WIRE_JSON }).from(source.from).where(byIdInOrganization(source.table)).limit(1),
  );
  const rows = (await find.execute({ id, organizationId })) as { json: string }[];
  return rows[0]?.json ?? null;
}

/** Like findOwnedJson, but a prn that finds nothing is 404. */
export async function requireOwnedJson(db: Executor, source: WireSource, organizationId: string, prn: string): Promise<string> {
  const json = await findOwnedJson(db, source, organizationId, prn);
  if (json === null) throw notFound(source.type, prn);
  return json;
}

/** A page as text: `items` is the page's wire objects joined by commas (empty for none). */
export interface JsonPage {
  items: string;
  nextPage: string | null;
}

interface PageRow {
  items: string | null;
  fetched: number;
  lastInsertedAt: string | null;
  lastId: string | null;
}

/**
 * One row for the whole page. The inner query is listOwnedRows's (limit + 1 rows, numbered in
 * page order); the outer one joins the first `limit` objects in that order and keeps the sort
 * key of the last one, whose text (`inserted_at::text`, the database's own form) makes the same
 * cursor the row path makes.
 */
function pageQuery(db: Executor, source: WireSource, where: SQL | undefined, page: PageRequest, limit: unknown, fetch: unknown) {
  const { table } = source;
  const { orderBy } = keyset(table, page);
  const order = sql.join(orderBy, sql`, `);
  const inner = sql`select row_number() over (order by ${order}) as n, ${WIRE_JSON} as j, ${table.insertedAt}::text as k_at, ${table.id}::text as k_id
    from ${source.from} where ${where} order by ${order} limit ${fetch}`;
  return db
    .select({
      items: sql<string | null>`string_agg(page.j, ',' order by page.n) filter (where page.n <= ${limit})`,
      fetched: sql<number>`count(*)::int`,
      lastInsertedAt: sql<string | null>`min(page.k_at) filter (where page.n = ${limit})`,
      lastId: sql<string | null>`min(page.k_id) filter (where page.n = ${limit})`,
    })
    .from(sql`(${inner}) page`);
}

function toJsonPage(row: PageRow, page: PageRequest): JsonPage {
  const more = row.fetched > page.limit && row.lastInsertedAt !== null && row.lastId !== null;
  return { items: row.items ?? '', nextPage: more ? encodeCursor({ insertedAt: row.lastInsertedAt!, id: row.lastId! }) : null };
}

/** listOwnedRows as wire JSON text. */
export async function listOwnedJson(
  db: Executor,
  source: WireSource,
  organizationId: string,
  query: ListQuery,
  search: ListSearch,
  ...conditions: (SQL | undefined)[]
): Promise<JsonPage> {
  const page = pageRequest(query);
  const { table } = source;
  const searched = searchedCondition(search, query.search);
  if (!searched && conditions.every((c) => c === undefined)) {
    // The common case, a page with no search or filter: prepared per order and cursor use.
    const plain = prepared(db, plainPageShape('list_json', table, page), () => {
      const where = combine(eq(table.organizationId, sql.placeholder('organizationId')), keyset(table, placeholderPage(page)).where);
      return pageQuery(db, source, where, page, sql.placeholder('limit'), sql.placeholder('fetch'));
    });
    const values = { organizationId, limit: page.limit, fetch: page.limit + 1, afterInsertedAt: page.after?.insertedAt, afterId: page.after?.id };
    const [row] = (await plain.execute(values)) as PageRow[];
    return toJsonPage(row, page);
  }
  const where = combine(eq(table.organizationId, organizationId), keyset(table, page).where, searched, ...conditions);
  const [row] = (await pageQuery(db, source, where, page, page.limit, page.limit + 1)) as PageRow[];
  return toJsonPage(row, page);
}
