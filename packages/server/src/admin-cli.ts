/**
 * Server administration from the shell: `npm run admin -- org create NAME` creates an
 * organization with its first admin API key and prints the key (shown only this once);
 * `backup DIR` / `restore DIR` copy the embedded mode's data directory (backup/embedded.ts).
 * Talks to the database directly, with the same settings as the server.
 */
import path from 'node:path';
import { createOrganization } from './accounts/service';
import { backupEmbedded, restoreEmbedded } from './backup/embedded';
import { loadConfig } from './config';
import { makePrivate, PRIVATE_UMASK } from './data-dir/private-files';
import { connect, pgliteDirFor } from './db/connection';
import { runMigrations } from './db/migrate';
import { ApiError } from './http/errors';

const USAGE = `usage: npm run admin -- org create NAME [--email EMAIL] [--username NAME --password PASSWORD]
       npm run admin -- backup DIR
       npm run admin -- restore DIR

Creates an organization and prints its first admin API key; or backs the embedded mode's data
directory (database, blobs, keys) up into DIR, or restores it from DIR into a new data directory.
Uses DATABASE_URL, or the embedded database under CANOPY_DATA_DIR (stop the server first:
the embedded database takes one process at a time).`;

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

async function main(args: string[]): Promise<number> {
  const [noun, verb, name] = args;
  if ((noun === 'backup' || noun === 'restore') && verb) return backupCommand(noun, verb);
  if (noun !== 'org' || verb !== 'create' || !name || name.startsWith('--')) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  const handle = await connect({ databaseUrl: config.databaseUrl, pgliteDir: pgliteDirFor(config.dataDir) });
  try {
    await runMigrations(handle);
    const password = option(args, '--password');
    const adminUser = password ? { email: option(args, '--email') ?? null, username: option(args, '--username') ?? null, password } : undefined;
    const created = await createOrganization(handle.db, { name, adminUser });
    process.stdout.write(`organization: prn:1:${created.organization.id} (${name})\nadmin API key: ${created.apiKey}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ApiError) {
      process.stderr.write(`error: ${JSON.stringify(error.toBody())}\n`);
      return 1;
    }
    throw error;
  } finally {
    await handle.close();
    // A first PGlite start writes its files 0666 (data-dir/private-files.ts).
    if (!config.databaseUrl) makePrivate(config.dataDir);
  }
}

async function backupCommand(command: 'backup' | 'restore', dir: string): Promise<number> {
  const config = loadConfig();
  if (config.databaseUrl) {
    process.stderr.write('backup and restore here are for the embedded database; with DATABASE_URL use pg_dump and your blob store\'s copy (see the docs: Backup and restore)\n');
    return 2;
  }
  const layout = { dataDir: config.dataDir, pgliteDir: pgliteDirFor(config.dataDir), blobRoot: config.blobStore.kind === 'filesystem' ? config.blobStore.root : null };
  if (!layout.blobRoot) process.stderr.write('blobs are in S3: they are not part of this backup (see the docs: Backup and restore)\n');
  try {
    const manifest = command === 'backup' ? await backupEmbedded(layout, path.resolve(dir)) : await restoreEmbedded(path.resolve(dir), layout);
    process.stdout.write(`${command === 'backup' ? 'backed up' : 'restored'} ${Object.keys(manifest.files).length} files ${command === 'backup' ? 'into' : 'from'} ${path.resolve(dir)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    return 1;
  }
}

// Backups, restored data and a data directory created here are its user's alone.
process.umask(PRIVATE_UMASK);
process.exitCode = await main(process.argv.slice(2));
