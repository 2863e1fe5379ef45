/**
 * Server administration from the shell: `npm run admin -- org create NAME` creates an
 * organization with its first admin API key and prints the key (shown only this once).
 * Talks to the database directly, with the same settings as the server.
 */
import { createOrganization } from './accounts/service';
import { loadConfig } from './config';
import { connect, pgliteDirFor } from './db/connection';
import { runMigrations } from './db/migrate';
import { ApiError } from './http/errors';

const USAGE = `usage: npm run admin -- org create NAME [--email EMAIL] [--username NAME --password PASSWORD]

Creates an organization and prints its first admin API key.
Uses DATABASE_URL, or the embedded database under CANOPY_DATA_DIR (stop the server first:
the embedded database takes one process at a time).`;

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

async function main(args: string[]): Promise<number> {
  const [noun, verb, name] = args;
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
  }
}

process.exitCode = await main(process.argv.slice(2));
