/**
 * A migrated PGlite database, dumped once per set of migrations and loaded by every in-memory
 * test server. Loading the dump takes under a second; initdb and the migrations take about 4 s,
 * which every server-starting test file used to pay. The file in the temporary directory is named
 * by a hash of PGlite's version and the migrations, so a changed migration makes a new one.
 */
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate';

let seed: Promise<Blob> | undefined;

export function migratedPgliteSeed(): Promise<Blob> {
  seed ??= loadOrCreate();
  return seed;
}

function seedKey(): string {
  const hash = createHash('sha256');
  hash.update(fs.readFileSync(packageJsonOf(createRequire(import.meta.url).resolve('@electric-sql/pglite'))));
  for (const file of filesUnder(MIGRATIONS_FOLDER)) hash.update(file).update(fs.readFileSync(path.join(MIGRATIONS_FOLDER, file)));
  return hash.digest('hex').slice(0, 16);
}

/** PGlite's exports do not include its package.json: found above its entry point. */
function packageJsonOf(entry: string): string {
  for (let dir = path.dirname(entry); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'package.json');
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${entry}`);
  }
}

function filesUnder(root: string): string[] {
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((name) => fs.statSync(path.join(root, name)).isFile()).sort();
}

async function loadOrCreate(): Promise<Blob> {
  const file = path.join(os.tmpdir(), `canopy-pglite-seed-${seedKey()}.tar`);
  if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)]);
  const client = new PGlite();
  try {
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
    const dump = await client.dumpDataDir('none');
    // Written aside and renamed: a worker reading it at the same moment sees all or nothing.
    const partial = `${file}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
    return dump;
  } finally {
    await client.close();
  }
}
