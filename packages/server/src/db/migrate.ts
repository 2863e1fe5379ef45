/**
 * Applies drizzle's migrations at start. On PostgreSQL several server processes may start at
 * once, so the run is serialised with an advisory lock; PGlite has a single connection anyway.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePostgres } from 'drizzle-orm/node-postgres/migrator';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseHandle } from './connection';

export const MIGRATIONS_FOLDER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../drizzle');
const MIGRATION_LOCK = 724_431_001;

export async function runMigrations(handle: DatabaseHandle): Promise<void> {
  const config = { migrationsFolder: MIGRATIONS_FOLDER };
  if (handle.driver === 'pglite') {
    // Loaded only for PGlite, like the driver itself (connection.ts).
    const { migrate: migratePglite } = await import('drizzle-orm/pglite/migrator');
    await migratePglite(handle.db as never, config);
    return;
  }
  const pool = (handle.db as unknown as { $client: import('pg').Pool }).$client;
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migrateNodePostgres(drizzle(client), config);
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}
