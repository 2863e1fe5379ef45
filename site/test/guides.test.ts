/**
 * The guides, followed literally and in order by a newcomer on one fresh server.
 *
 * The test starts the real server (`packages/server/src/main.ts`, what `npm start` runs) with a
 * fresh data directory, then runs every `sh` block of docs/canopy-core/guides in the order of
 * the sidebar (getting started first), in ONE bash (`set -euo pipefail`), from the checkout, as
 * a reader would. A block is skipped only when its meta says `norun="reason"`, and the reason
 * must be given (it is shown to readers as part of the page's text nearby).
 *
 * The shell gets no Canopy variable: the guides define CANOPY_URL, CANOPY_API_KEY and the rest
 * themselves. It gets only what a reader's machine has:
 *   - PATH without the checkout's node_modules/.bin, so `canopy` exists only once the getting
 *     started guide has installed it (`npm install -g ./packages/cli`), into a temporary npm
 *     prefix (NPM_CONFIG_PREFIX) whose bin directory is on PATH, under a temporary HOME;
 *   - the settings the server was started with (CANOPY_DATA_DIR, CANOPY_ADMIN_PORT,
 *     CANOPY_DEVICE_PORT), which the guides say to carry over when a reader changed them: the
 *     test cannot use the default ports 4000/4001 on a shared machine.
 * Afterwards nothing new may be left in the checkout's root (scratch files go to a temp dir).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainFailure, markdownFiles, runBash, scriptOf, shellBlocks, sidebarPosition } from './helpers/shellBlocks';
import { repoDir, siteDir } from './helpers/paths';
import { freePort } from './helpers/ports';

const GUIDES_DIR = path.join(siteDir, 'docs/canopy-core/guides');

// CANOPY_GUIDES=getting-started,first-device runs only those guides (to time one guide on its own).
const only = process.env.CANOPY_GUIDES?.split(',').map((name) => `${name.trim()}.md`);
const guides = markdownFiles(GUIDES_DIR)
  .filter((file) => !only || only.includes(path.basename(file)))
  .map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }))
  .sort((a, b) => sidebarPosition(a.text) - sidebarPosition(b.text) || a.file.localeCompare(b.file));
const blocks = guides.flatMap((guide) => shellBlocks(path.relative(siteDir, guide.file), guide.text));

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-guides-'));
let server: ChildProcess | null = null;
let serverLog = '';
const settings: Record<string, string> = {};

beforeAll(async () => {
  settings.CANOPY_DATA_DIR = path.join(scratch, 'data');
  settings.CANOPY_ADMIN_PORT = String(await freePort());
  settings.CANOPY_DEVICE_PORT = String(await freePort());
  server = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
    cwd: repoDir,
    env: { ...process.env, ...settings, CANOPY_SITE_DIR: path.join(scratch, 'no-site'), CANOPY_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (chunk) => (serverLog += chunk));
  server.stderr!.on('data', (chunk) => (serverLog += chunk));
  const deadline = Date.now() + 120_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${settings.CANOPY_ADMIN_PORT}/users/me`).then(
      () => true,
      () => false,
    );
    if (up && fs.existsSync(path.join(settings.CANOPY_DATA_DIR, 'initial-api-key'))) break;
    if (server.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${serverLog.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('the guides, in reading order, in one shell', () => {
  it('every guide block runs or says why it cannot', () => {
    expect(guides.length).toBeGreaterThanOrEqual(only ? only.length : 8);
    expect(path.basename(guides[0].file)).toBe('getting-started.md');
    const unexplained = blocks.filter((block) => block.norun !== null && block.norun.trim().length < 10);
    expect(unexplained.map((b) => `${b.file}:${b.line}`)).toEqual([]);
    // `curl -f` prints "error: 422" and swallows the answer that says what was wrong.
    const silentFailures = blocks.filter((block) => block.norun === null && /curl\s+-f/.test(block.code));
    expect(silentFailures.map((b) => `${b.file}:${b.line}`)).toEqual([]);
  });

  it('runs every runnable block against one fresh server', async () => {
    const runnable = blocks.filter((block) => block.norun === null);
    const home = path.join(scratch, 'home');
    const prefix = path.join(scratch, 'npm-prefix');
    fs.mkdirSync(home);
    const rootBefore = fs.readdirSync(repoDir).sort();
    const readerPath = (process.env.PATH ?? '')
      .split(':')
      .filter((dir) => dir && !dir.includes('node_modules'))
      .join(':');
    const env: NodeJS.ProcessEnv = {
      ...settings,
      PATH: `${path.join(prefix, 'bin')}:${path.dirname(process.execPath)}:${readerPath}`,
      HOME: home,
      LANG: 'C.UTF-8',
      NPM_CONFIG_PREFIX: prefix,
      // Keep npm from asking the registry for news while it links the CLI.
      NPM_CONFIG_UPDATE_NOTIFIER: 'false',
      NPM_CONFIG_AUDIT: 'false',
      NPM_CONFIG_FUND: 'false',
    };
    const started = Date.now();
    const result = await runBash(scriptOf(runnable), repoDir, env, 540_000);
    const explanation = explainFailure(runnable, result) + (result.code === 0 ? '' : `\n--- server log (tail) ---\n${serverLog.slice(-2000)}`);
    expect(result.code, explanation).toBe(0);
    console.info(`guides: ${runnable.length} blocks ran in ${((Date.now() - started) / 1000).toFixed(1)} s; ${blocks.length - runnable.length} marked norun`);
    expect(fs.readdirSync(repoDir).sort(), 'scratch files were left in the checkout').toEqual(rootBefore);
  }, 570_000);
});
