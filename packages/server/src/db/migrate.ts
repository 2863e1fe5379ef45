/**
 * Applies drizzle's migrations at start. On PostgreSQL several server processes may start at
 * once, so the run is serialised with an advisory lock; PGlite has a single connection anyway.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePostgres } from 'drizzle-orm/node-postgres/migrator';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseHandle } from './connection';

/** packages/server/drizzle, from src/db here or from the bundle in dist/ that `npm start` runs. */
export const MIGRATIONS_FOLDER = migrationsFolderFrom(path.dirname(fileURLToPath(import.meta.url)));

function migrationsFolderFrom(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'drizzle');
    if (fs.existsSync(path.join(candidate, 'meta', '_journal.json'))) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`no drizzle migrations folder above ${start}`);
  }
}
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
