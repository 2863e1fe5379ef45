/**
 * owned-rows.ts's two queries (one row by prn, one keyset page) answering the resource's wire
 * JSON as text, read from a column the database keeps (devices/schema.ts's wire_json). A read
 * route sends that text as it is (json-reply.ts): no row parsing, mapping or serialising per
 * request. Semantics match owned-rows.ts exactly: same conditions, order, limit and cursors.
 */
import { eq, getTableName, sql, type SQL } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Database, Executor } from '../db/connection';
import { encodeCursor } from '../core/cursor';
import { notFound } from '../http/errors';
import { byIdInOrganization, placeholderPage, plainPageShape, searchedCondition, type ListSearch, type OwnedTable } from './owned-rows';
import { combine, keyset, pageRequest, type ListQuery, type PageRequest } from '../http/pagination';
import { prepared } from './prepared-queries';
import { resourceIdFromPrn, type PrnType } from '../core/prn';
import { turnBatch, turnShared } from './turn-batch';
import { PerHandle } from '../db/per-handle';
import { batchKey } from '../db/request-scope';

/** A table, its prn type and its column of each row's wire JSON text. */
export interface WireSource {
  table: OwnedTable;
  type: PrnType;
  /** The column, kept by the database to be exactly what the response serialiser writes (devices/schema.ts). */
  json: SQL<string>;
}

/** The wire JSON of the row a prn names in the organization, or null (see findOwnedRow). */
export async function findOwnedJson(db: Executor, source: WireSource, organizationId: string, prn: unknown): Promise<string | null> {
  const id = resourceIdFromPrn(prn, source.type, organizationId);
  if (!id) return null;
  if (db instanceof PgTransaction) {
    // Inside a transaction the read must see its writes: a query of its own, on its connection.
    const find = prepared(db, `find_json_${getTableName(source.table)}`, () =>
      db.select({ json: source.json }).from(source.table).where(byIdInOrganization(source.table)).limit(1),
    );
    const rows = (await find.execute({ id, organizationId })) as { json: string }[];
    return rows[0]?.json ?? null;
  }
  const row = await batchedFinder(db, source)(id);
  // The batch looks rows up by id alone; a row of another organization is not the caller's.
  return row !== undefined && row.organizationId === organizationId ? row.json : null;
}

interface FoundRow {
  id: string;
  organizationId: string;
  json: string;
}

const finders = new PerHandle<WireSource, (id: string) => Promise<FoundRow | undefined>>();

/**
 * One query per event-loop turn for all the rows of `source` looked up by id (turn-batch.ts).
 * Its rows are taken as the driver answers them (`all`, keyed by the aliases), not mapped by
 * drizzle field by field: three text columns need no mapping, and a turn reads ~20 rows.
 */
function batchedFinder(db: Database, source: WireSource) {
  // Per request scope inside one (db/request-scope.ts): a batch runs on one connection.
  return finders.get(batchKey(db), source, () => {
    const { table } = source;
    const find = prepared(db, `find_json_batch_${getTableName(table)}`, () =>
      db
        .select({
          id: sql<string>`${table.id}`.as('id'),
          organizationId: sql<string>`${table.organizationId}`.as('organizationId'),
          json: sql<string>`${source.json}`.as('json'),
        })
        .from(table)
        .where(sql`${table.id} = any(${sql.placeholder('ids')}::uuid[])`),
    );
    return turnBatch(async (ids) => {
      const rows = (await find.all({ ids })) as FoundRow[];
      return new Map(rows.map((row) => [row.id, row]));
    });
  });
}

/** Like findOwnedJson, but a prn that finds nothing is 404. */
export async function requireOwnedJson(db: Executor, source: WireSource, organizationId: string, prn: string): Promise<string> {
  const json = await findOwnedJson(db, source, organizationId, prn);
  if (json === null) throw notFound(source.type, prn);
  return json;
}

/** A page as text: `items` holds the page's wire objects in order. */
export interface JsonPage {
  items: string[];
  nextPage: string | null;
}

/**
 * listOwnedRows's query (limit + 1 rows in page order), selecting only each row's wire JSON:
 * the rows are joined here. Joining them in the database (string_agg over numbered rows, to
 * drop the extra one and keep the last one's sort key) cost PostgreSQL twice the CPU of sending
 * the rows, even with the JSON stored: a backend returned the ~150 KB that aggregate and its
 * output took to the OS after each query and faulted it back in on the next. Selecting the
 * sort key of every row as text cost more than reading it from the last row's JSON.
 */
function pageQuery(db: Executor, source: WireSource, where: SQL | undefined, page: PageRequest, fetch: unknown) {
  const { orderBy } = keyset(source.table, page);
  return db
    .select({ json: sql<string>`${source.json}`.as('json') })
    .from(source.table)
    .where(where)
    .orderBy(...orderBy)
    .limit(fetch as number);
}

/**
 * The cursor after a page's last row, from that row's wire JSON: `inserted_at` (RFC 3339 with
 * all six digits of microseconds, the same instant as the column) and the id at the end of its
 * prn. decodeCursor accepts that form, and the keyset comparison casts it back exactly.
 */
function cursorAfter(lastJson: string): string {
  const { prn, inserted_at: insertedAt } = JSON.parse(lastJson) as { prn: string; inserted_at: string };
  return encodeCursor({ insertedAt, id: prn.slice(prn.lastIndexOf(':') + 1) });
}

function toJsonPage(rows: { json: string }[], page: PageRequest): JsonPage {
  const count = Math.min(rows.length, page.limit);
  const items = new Array<string>(count);
  for (let i = 0; i < count; i++) items[i] = rows[i].json;
  return { items, nextPage: rows.length > page.limit ? cursorAfter(rows[page.limit - 1].json) : null };
}

/** A page with no search or filter, the common case: a prepared query per order and cursor use. */
async function plainPage(db: Executor, source: WireSource, organizationId: string, page: PageRequest): Promise<JsonPage> {
  const { table } = source;
  const query = prepared(db, plainPageShape('list_json', table, page), () => {
    const where = combine(eq(table.organizationId, sql.placeholder('organizationId')), keyset(table, placeholderPage(page)).where);
    return pageQuery(db, source, where, page, sql.placeholder('fetch'));
  });
  const values = { organizationId, fetch: page.limit + 1, afterInsertedAt: page.after?.insertedAt, afterId: page.after?.id };
  return toJsonPage((await query.all(values)) as { json: string }[], page);
}

const sharedPages = new PerHandle<WireSource, (key: string) => Promise<JsonPage>>();

/**
 * plainPage, run once per turn for all the requests of the same page (turn-batch.ts): under load
 * clients polling a list ask for the same page many times in one turn, and each would cost the
 * database the same rows and Node the same parse. The query is sent after every request that
 * shares it arrived, so each still sees every write that finished before it was asked.
 */
function sharedPlainPage(db: Database, source: WireSource, organizationId: string, page: PageRequest): Promise<JsonPage> {
  const load = sharedPages.get(batchKey(db), source, () => {
    const lastPages = new LastPages();
    return turnShared(async (key) => {
      const [organizationId, page] = JSON.parse(key) as [string, PageRequest];
      const answer = await plainPage(db, source, organizationId, page);
      return page.after === null ? lastPages.sameAsLast(key, answer) : answer;
    });
  });
  return load(JSON.stringify([organizationId, page]));
}

/** First pages (by their shared key) remembered at most: a few MB at most. */
const LAST_PAGES_KEPT = 16;

/**
 * The last answer of each of the most recently read first pages. A first page read again that
 * holds exactly the same items and cursor is answered with the JsonPage of last time, and so with
 * the body bytes already made for it (json-reply.ts): a list polled under load reads its first
 * page turn after turn, and encoding its ~60 KB into a new Buffer each time cost CPU and off-heap
 * memory, which V8 counts against the old generation's room: it started a mark-compact every few
 * hundred milliseconds under 64 connections. Every turn still reads the rows: only an answer
 * equal to the last one is swapped for its twin, so a change is sent at once.
 *
 * Only first pages, which are what clients poll: pages further on are read once each while paging
 * through, and remembering those too made young collections 10-20 times slower (35-70 ms each)
 * with 500 different pages read in turn, raising the server's CPU per page 1.5-2 times.
 */
class LastPages {
  private readonly pages = new Map<string, JsonPage>();

  sameAsLast(key: string, page: JsonPage): JsonPage {
    const last = this.pages.get(key);
    const answer = last !== undefined && samePage(last, page) ? last : page;
    // Re-inserted, so the Map's order is the order of last read and the least recent goes first.
    this.pages.delete(key);
    this.pages.set(key, answer);
    if (this.pages.size > LAST_PAGES_KEPT) this.pages.delete(this.pages.keys().next().value!);
    return answer;
  }
}

function samePage(a: JsonPage, b: JsonPage): boolean {
  if (a.nextPage !== b.nextPage || a.items.length !== b.items.length) return false;
  for (let i = 0; i < a.items.length; i++) if (a.items[i] !== b.items[i]) return false;
  return true;
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
  const searched = searchedCondition(search, query.search);
  if (!searched && conditions.every((c) => c === undefined)) {
    // Inside a transaction the read must see its writes: a query of its own, on its connection.
    return db instanceof PgTransaction ? plainPage(db, source, organizationId, page) : sharedPlainPage(db, source, organizationId, page);
  }
  const where = combine(eq(source.table.organizationId, organizationId), keyset(source.table, page).where, searched, ...conditions);
  return toJsonPage(await pageQuery(db, source, where, page, page.limit + 1), page);
}
