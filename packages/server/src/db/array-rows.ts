/**
 * Rows as arrays from a named prepared statement, straight from the driver under drizzle (its
 * `$client`: a node-postgres pool or PGlite). For the hottest reads only (the update check's),
 * where building the query and mapping its rows through drizzle costs more than running it;
 * everything else goes through drizzle. Column values come as the driver parses them (json
 * parsed, bigint as text, arrays as arrays). `name` lets PostgreSQL plan the text once per
 * connection.
 */
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import type { Executor } from './connection';

export async function queryArrayRows(db: Executor, name: string, text: string, values: unknown[]): Promise<unknown[][]> {
  const client = (db as unknown as { $client?: pg.Pool | PGlite }).$client;
  if (!client) throw new Error('queryArrayRows: needs the database handle, not a transaction');
  if (client instanceof pg.Pool) return (await client.query({ name, text, values, rowMode: 'array' })).rows;
  return (await client.query<unknown[]>(text, values, { rowMode: 'array' })).rows;
}
