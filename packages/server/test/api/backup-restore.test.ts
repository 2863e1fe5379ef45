/**
 * Backup and restore, run as the docs page "Backup and restore" says, command for command: a real
 * server process is filled through the API, stopped, backed up, restored into a fresh data
 * directory (and, on PostgreSQL, a fresh database), started again, and every list of every
 * resource, every binary's bytes and the device API's CA are compared with what they were.
 * PGlite: `npm run admin -- backup/restore`; PostgreSQL: the page's pg_dump procedure.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createFleet } from '../support/fleet';
import { freePort, spawnServer, type ServerProcess } from '../support/server-process';
import type { Api } from '../support/server';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const PAGE = path.join(REPO, 'site/docs/canopy-core/reference/backup-and-restore.md');

/** The shell block of the docs page with this title. */
function pageBlock(title: string): string {
  const page = fs.readFileSync(PAGE, 'utf8');
  // The fence may carry more meta words after the title (the site's `tested-by="..."`).
  const match = new RegExp('```sh title="' + title + '"[^\\n]*\\n([\\s\\S]*?)```').exec(page);
  if (!match) throw new Error(`no block "${title}" on ${PAGE}`);
  return match[1];
}

async function runBlock(title: string, env: Record<string, string>): Promise<void> {
  await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', pageBlock(title)], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    timeout: 180_000,
  });
}

function client(baseUrl: string, key: string): Api {
  return async (method, url, body, options = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...options.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${baseUrl}${url}`, { method, headers, body: body === undefined ? options.raw : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
}

/** Every list of the admin document, and the bytes of every binary (their SHA-256). */
async function snapshot(baseUrl: string, api: Api): Promise<Record<string, unknown>> {
  type Operation = { responses?: Record<string, { content?: Record<string, unknown> }> };
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, { get?: Operation }> };
  // JSON lists only: a Server-Sent Events stream (GET /events/stream) never ends.
  const answersJson = (op: Operation) => Object.keys(op.responses?.['200']?.content ?? { 'application/json': {} }).includes('application/json');
  const lists = Object.entries(document.paths)
    .filter(([p, ops]) => ops.get && answersJson(ops.get) && !p.includes('{') && p !== '/healthz' && p !== '/users/me')
    .map(([p]) => p);
  const out: Record<string, unknown> = {};
  for (const list of lists) {
    const res = await api('GET', `${list}?limit=100`);
    expect(res.status, `${list}: ${JSON.stringify(res.body)}`).toBe(200);
    out[list] = res.body;
  }
  for (const binary of (out['/binaries'] as { binaries: { prn: string; state: string }[] }).binaries) {
    const link = await api('GET', `/binaries/${binary.prn}/download_url`);
    const url = String(link.body.download_url ?? link.body.url ?? link.body.data?.url).replace(/^https?:\/\/[^/]+/, baseUrl);
    out[`bytes ${binary.prn}`] = createHash('sha256').update(Buffer.from(await (await fetch(url)).arrayBuffer())).digest('hex');
  }
  return out;
}

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('backup and restore, as the docs page says', () => {
  it('restores every resource, every binary and the keys into a fresh data directory', async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-backup-'));
    cleanups.push(() => fs.rmSync(work, { recursive: true, force: true }));
    const [dataDir, backupDir, restoredDir] = ['data', 'backup', 'restored'].map((d) => path.join(work, d));
    const key = `cnpy_backup_${randomBytes(24).toString('base64url')}`;
    const databases: TestDatabase[] = [await createTestDatabase(), await createTestDatabase()];
    cleanups.push(() => Promise.all(databases.map((d) => d.drop())));
    const onPostgres = databases[0].url !== null;
    const envFor = (dir: string, database: TestDatabase) => ({ CANOPY_DATA_DIR: dir, CANOPY_BOOTSTRAP_API_KEY: key, ...(database.url ? { DATABASE_URL: database.url } : {}) });

    let server: ServerProcess = await spawnServer(envFor(dataDir, databases[0]), await freePort());
    cleanups.push(() => server.kill('SIGKILL'));
    const api = client(server.url, key);
    const fleet = await createFleet(api);
    const cohort = await fleet.cohort();
    await fleet.devices(3, cohort.id);
    const bundle = await fleet.bundle();
    expect((await api('POST', '/releases', { bundle_prn: bundle.prn, cohort_prn: cohort.prn, name: 'r1', required: false, schedule_date: null })).status).toBe(201);
    expect((await api('POST', '/users', { username: 'backup-user', password: 'a long password', role: 'read' })).status).toBe(201);
    const before = await snapshot(server.url, api);
    expect((before['/devices'] as { devices: unknown[] }).devices.length).toBe(3);
    await server.kill('SIGTERM');

    const started = Date.now();
    if (onPostgres) {
      await runBlock('Back up on PostgreSQL', { BACKUP_DIR: backupDir, DATABASE_URL: databases[0].url!, CANOPY_DATA_DIR: dataDir });
      fs.mkdirSync(restoredDir);
      await runBlock('Restore on PostgreSQL', { BACKUP_DIR: backupDir, DATABASE_URL: databases[1].url!, CANOPY_DATA_DIR: restoredDir });
    } else {
      await runBlock('Back up the embedded mode', { BACKUP_DIR: backupDir, CANOPY_DATA_DIR: dataDir });
      // A restore refuses a data directory that is in use, and writes nothing there.
      await expect(runBlock('Restore the embedded mode', { BACKUP_DIR: backupDir, CANOPY_DATA_DIR: dataDir })).rejects.toThrow(/not empty/);
      await runBlock('Restore the embedded mode', { BACKUP_DIR: backupDir, CANOPY_DATA_DIR: restoredDir });
    }
    console.info(`backup + restore (${onPostgres ? 'PostgreSQL' : 'PGlite'}): ${((Date.now() - started) / 1000).toFixed(1)} s`);

    server = await spawnServer(envFor(restoredDir, databases[1]), await freePort());
    const after = await snapshot(server.url, client(server.url, key));
    expect(after).toEqual(before);
    for (const file of ['secret-key', 'device-api/ca.pem']) {
      expect(fs.readFileSync(path.join(restoredDir, file), 'utf8'), file).toBe(fs.readFileSync(path.join(dataDir, file), 'utf8'));
    }
    expect(fs.statSync(path.join(restoredDir, 'secret-key')).mode & 0o777).toBe(0o600);
    await server.kill('SIGTERM');
  }, 600_000);

  it('refuses a damaged backup', async () => {
    if (process.env.DATABASE_URL) return;
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-backup-damaged-'));
    cleanups.push(() => fs.rmSync(work, { recursive: true, force: true }));
    fs.mkdirSync(path.join(work, 'backup'));
    fs.writeFileSync(path.join(work, 'backup', 'database.tar.gz'), 'not a dump');
    fs.writeFileSync(path.join(work, 'backup', 'manifest.json'), JSON.stringify({ format: 1, created_at: '', files: { 'database.tar.gz': { sha256: '0'.repeat(64), size: 10 } } }));
    await expect(runBlock('Restore the embedded mode', { BACKUP_DIR: path.join(work, 'backup'), CANOPY_DATA_DIR: path.join(work, 'restored') })).rejects.toThrow(/damaged/);
    expect(fs.existsSync(path.join(work, 'restored'))).toBe(false);
  });
});
