/**
 * Rows as arrays from a named prepared statement, straight from the driver under drizzle (its
 * `$client`: a node-postgres pool or PGlite). For the hottest reads only (the update check's),
 * where building the query and mapping its rows through drizzle costs more than running it;
 * everything else goes through drizzle. Column values come as the driver parses them (json
 * parsed, bigint as text, arrays as arrays). `name` lets PostgreSQL plan the text once per
 * connection. Inside a transaction (no `$client`) the same text runs unnamed on its connection.
 */
import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import type { Executor } from './connection';

/** `text` with its `$n` placeholders as drizzle parameters, for a transaction's handle. */
function withParameters(text: string, values: unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  return sql.join(parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql.param(values[Number(part) - 1]))));
}

export async function queryArrayRows(db: Executor, name: string, text: string, values: unknown[]): Promise<unknown[][]> {
  const client = (db as unknown as { $client?: pg.Pool | PGlite }).$client;
  // Inside a transaction the statement runs on its connection, unnamed, through drizzle.
  if (!client) return ((await db.execute(withParameters(text, values))) as unknown as { rows: Record<string, unknown>[] }).rows.map((row) => Object.values(row));
  if (client instanceof pg.Pool) return (await client.query({ name, text, values, rowMode: 'array' })).rows;
  return (await client.query<unknown[]>(text, values, { rowMode: 'array' })).rows;
}
