/**
 * Backup and restore of the embedded mode's data directory (`npm run admin -- backup DIR` /
 * `restore DIR`; the procedure: the docs page "Backup and restore"). A backup holds
 * manifest.json (format, time, SHA-256 and size of every other file), database.tar.gz (PGlite's
 * dumpDataDir, taken while the database is open here, so one consistent state) and files/...
 * (the rest of the data directory; the blobs under files/blobs/).
 * Backups and restored directories are private (0700, files 0600): they hold password hashes and
 * keys. The server must be stopped: the embedded database takes one process at a time. Restore
 * writes only into a missing or empty data directory, checks every hash first, and leaves
 * nothing behind when it fails.
 */
import { PGlite } from '@electric-sql/pglite';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { makePrivate } from '../data-dir/private-files';

export const BACKUP_FORMAT = 1;
const DATABASE_FILE = 'database.tar.gz';
const FILES_DIR = 'files';

interface Manifest {
  format: number;
  created_at: string;
  files: Record<string, { sha256: string; size: number }>;
}

export interface EmbeddedLayout {
  dataDir: string;
  /** PGlite's directory (dataDir/pglite). */
  pgliteDir: string;
  /** The filesystem blob store's root, or null when blobs are in S3 (not part of a backup). */
  blobRoot: string | null;
}

function walk(root: string, skip: (absolute: string) => boolean, found: string[] = [], dir = root): string[] {
  if (!fs.existsSync(dir)) return found;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const absolute = path.join(dir, entry.name);
    if (skip(absolute)) continue;
    if (entry.isDirectory()) walk(root, skip, found, absolute);
    else if (entry.isFile()) found.push(absolute);
  }
  return found;
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** Backups and restored data hold secrets: the copy is its owner's alone, whatever the source's mode. */
function copyPrivately(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
  fs.copyFileSync(from, to);
  fs.chmodSync(to, 0o600);
}

export async function backupEmbedded(layout: EmbeddedLayout, target: string): Promise<Manifest> {
  if (!fs.existsSync(path.join(layout.pgliteDir, 'PG_VERSION'))) throw new Error(`no embedded database in ${layout.pgliteDir}`);
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0) throw new Error(`${target} is not empty`);
  fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  const database = new PGlite(layout.pgliteDir);
  try {
    await database.waitReady;
    const dump = await database.dumpDataDir('gzip');
    fs.writeFileSync(path.join(target, DATABASE_FILE), Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
  } finally {
    await database.close();
  }
  const inside = (dir: string | null) => (candidate: string) => dir !== null && (candidate === dir || candidate.startsWith(dir + path.sep));
  const skipped = (candidate: string) => inside(layout.pgliteDir)(candidate) || inside(layout.blobRoot)(candidate);
  for (const file of walk(layout.dataDir, skipped)) copyPrivately(file, path.join(target, FILES_DIR, 'data', path.relative(layout.dataDir, file)));
  if (layout.blobRoot) for (const file of walk(layout.blobRoot, () => false)) copyPrivately(file, path.join(target, FILES_DIR, 'blobs', path.relative(layout.blobRoot, file)));
  const manifest: Manifest = { format: BACKUP_FORMAT, created_at: new Date().toISOString(), files: {} };
  for (const file of walk(target, (candidate) => candidate === path.join(target, 'manifest.json'))) {
    manifest.files[path.relative(target, file).split(path.sep).join('/')] = { sha256: sha256(file), size: fs.statSync(file).size };
  }
  fs.writeFileSync(path.join(target, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  makePrivate(target);
  return manifest;
}

export async function restoreEmbedded(source: string, layout: EmbeddedLayout): Promise<Manifest> {
  const manifest = JSON.parse(fs.readFileSync(path.join(source, 'manifest.json'), 'utf8')) as Manifest;
  if (manifest.format !== BACKUP_FORMAT) throw new Error(`backup format ${manifest.format} is not ${BACKUP_FORMAT}`);
  for (const [name, expected] of Object.entries(manifest.files)) {
    const file = path.join(source, ...name.split('/'));
    if (!fs.existsSync(file) || sha256(file) !== expected.sha256) throw new Error(`backup file ${name} is missing or damaged`);
  }
  if (fs.existsSync(layout.dataDir) && fs.readdirSync(layout.dataDir).length > 0) throw new Error(`${layout.dataDir} is not empty: restore into a new data directory`);
  const createdDataDir = !fs.existsSync(layout.dataDir);
  try {
    fs.mkdirSync(layout.dataDir, { recursive: true, mode: 0o700 });
    for (const name of Object.keys(manifest.files)) {
      const [top, area, ...rest] = name.split('/');
      if (top !== FILES_DIR) continue;
      const root = area === 'data' ? layout.dataDir : area === 'blobs' ? layout.blobRoot : null;
      if (root) copyPrivately(path.join(source, ...name.split('/')), path.join(root, ...rest));
    }
    const dump = new Blob([fs.readFileSync(path.join(source, DATABASE_FILE))]);
    const database = new PGlite(layout.pgliteDir, { loadDataDir: dump });
    await database.waitReady;
    await database.query('select 1');
    await database.close();
    // PGlite writes the files it loads with mode 0666.
    makePrivate(layout.dataDir);
    if (layout.blobRoot) makePrivate(layout.blobRoot);
    return manifest;
  } catch (error) {
    // Nothing half-restored is left to be started by mistake.
    if (createdDataDir) fs.rmSync(layout.dataDir, { recursive: true, force: true });
    else for (const entry of fs.readdirSync(layout.dataDir)) fs.rmSync(path.join(layout.dataDir, entry), { recursive: true, force: true });
    throw error;
  }
}
