/**
 * One code path, two drivers: embedded PGlite (the default, data under CANOPY_DATA_DIR) or
 * PostgreSQL through node-postgres when DATABASE_URL is set. Everything above this file sees
 * the same drizzle `Database` type and cannot tell which one it runs on. Both drivers are wrapped
 * so a request scope (request-scope.ts) can gather a request's statements into one transaction.
 */
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import fs from 'node:fs';
import path from 'node:path';
import { registerScopeDriver } from './request-scope';
import { RequestScopedPool, requestScopedPglite } from './scoped-clients';
import * as schema from './schema';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Either the database or an open transaction: services take this so callers choose the scope. */
export type Executor = Database | Transaction;

export interface DatabaseHandle {
  db: Database;
  driver: 'pglite' | 'postgres';
  close(): Promise<void>;
}

export interface ConnectOptions {
  databaseUrl: string | null;
  /** Folder for PGlite's files; null keeps PGlite in memory (tests). */
  pgliteDir: string | null;
  /**
   * An in-memory PGlite starts from this dump (PGlite's dumpDataDir) instead of an empty
   * cluster: tests pass a migrated one, which loads in under a second where initdb takes ~3 s.
   */
  pgliteSeed?: Blob;
  poolSize?: number;
}

export async function connect(options: ConnectOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pool = new RequestScopedPool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 20,
      // UTC sessions keep the database's text timestamps in the wire format's zone.
      options: '-c TimeZone=UTC',
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const db = drizzleNodePostgres(pool, { schema }) as unknown as Database;
    registerScopeDriver(db, pool.scopeDriver);
    return { db, driver: 'postgres', close: () => pool.end() };
  }
  // Loaded only here: PGlite and its WebAssembly build cost a PostgreSQL server ~40 MB of memory.
  const [{ PGlite }, { drizzle: drizzlePglite }] = await Promise.all([import('@electric-sql/pglite'), import('drizzle-orm/pglite')]);
  if (options.pgliteDir) fs.mkdirSync(options.pgliteDir, { recursive: true });
  const client = options.pgliteDir ? new PGlite(options.pgliteDir) : new PGlite({ loadDataDir: options.pgliteSeed });
  await client.waitReady;
  await client.exec("SET TIME ZONE 'UTC'");
  const scoped = requestScopedPglite(client);
  const db = drizzlePglite(scoped.client, { schema }) as unknown as Database;
  registerScopeDriver(db, scoped.scopeDriver);
  return { db, driver: 'pglite', close: () => client.close() };
}

export function pgliteDirFor(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}
