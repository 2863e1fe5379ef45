/**
 * The data directory (embedded database, keys), and backups of it, are the server user's alone:
 * a real server process on its own data directory (not the test worker's shared PGlite), the
 * admin CLI's backup and restore, and a world-readable data directory repaired at start.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterAll, freePort, processApi, spawnServer, type ServerProcess } from '../support/server-process';

const SERVER_PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cleanup = cleanupsAfterAll();

/** Every directory and file under `root` (itself included) that its group or others may use. */
function openToOthers(root: string): string[] {
  const found: string[] = [];
  const visit = (entry: string) => {
    const stat = fs.lstatSync(entry);
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0) found.push(`${path.relative(root, entry) || '.'} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(root);
  return found;
}

function countEntries(root: string): number {
  return fs.readdirSync(root, { recursive: true }).length;
}

/** What a careless copy or an old release leaves: everything readable and writable by all. */
function openToAll(root: string): void {
  const stat = fs.lstatSync(root);
  if (stat.isSymbolicLink()) return;
  fs.chmodSync(root, stat.isDirectory() ? 0o777 : 0o666);
  if (stat.isDirectory()) for (const name of fs.readdirSync(root)) openToAll(path.join(root, name));
}

function adminCli(args: string[], dataDir: string): Promise<unknown> {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/admin-cli.ts', ...args], {
    cwd: SERVER_PACKAGE,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CANOPY_DATA_DIR: dataDir },
    timeout: 180_000,
  });
}

describe('data directory permissions (embedded mode)', () => {
  it('keeps a fresh data directory private, repairs a world-readable one at start, and keeps backups private', async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-perms-'));
    cleanup(() => fs.rmSync(work, { recursive: true, force: true }));
    // The temporary folder itself may be open; what the server creates must not be.
    fs.chmodSync(work, 0o755);
    const [dataDir, backupDir, restoredDir] = ['data', 'backup', 'restored'].map((d) => path.join(work, d));
    const key = `cnpy_perms_${randomBytes(24).toString('base64url')}`;
    const env = { CANOPY_DATA_DIR: dataDir, CANOPY_BOOTSTRAP_API_KEY: key };
    const port = await freePort();
    let server: ServerProcess | null = null;
    cleanup(() => server?.kill('SIGKILL'));
    const someWrites = async () => {
      const api = processApi(server!.url, key);
      for (let i = 0; i < 3; i++) expect((await api('POST', '/products', { name: `perms-${randomBytes(4).toString('hex')}` })).status).toBe(201);
      expect((await api('POST', '/users', { username: `perms-${randomBytes(4).toString('hex')}`, password: 'a long enough password' })).status).toBe(201);
    };

    server = await spawnServer(env, port);
    await someWrites();
    expect(openToOthers(dataDir), 'while running').toEqual([]);
    await server.kill('SIGTERM');
    expect(countEntries(path.join(dataDir, 'pglite'))).toBeGreaterThan(100);
    expect(openToOthers(dataDir), 'after a fresh start, writes and a stop').toEqual([]);

    openToAll(dataDir);
    server = await spawnServer(env, port);
    expect(openToOthers(dataDir), 'repaired at start').toEqual([]);
    await someWrites();
    await server.kill('SIGTERM');
    expect(openToOthers(dataDir), 'after the second run').toEqual([]);

    // A backup of a data directory someone opened again, and its restore, are private too.
    openToAll(dataDir);
    await adminCli(['backup', backupDir], dataDir);
    expect(countEntries(backupDir)).toBeGreaterThan(2);
    expect(openToOthers(backupDir), 'backup').toEqual([]);
    await adminCli(['restore', backupDir], restoredDir);
    expect(countEntries(path.join(restoredDir, 'pglite'))).toBeGreaterThan(100);
    expect(openToOthers(restoredDir), 'restored data directory').toEqual([]);
  }, 600_000);
});
