/**
 * The daemon's docs pages (site/docs/canopy-core/tools/canopy-daemon/) run as written: every `sh`
 * block there runs here, or says why not with `norun="..."`, and no page hides a shell example in
 * a block of another language (`bash`, `shell`, `console`), which nothing would run.
 *
 * The runnable blocks run in one bash, from the checkout, in the order of the pages (the
 * installation page first), with one change, made in the text: the device's system paths
 * (/usr/lib/canopy, /usr/local/bin, /etc/canopy, /var/lib/canopy) are moved under a temporary
 * root, so the test installs nothing into this machine. Where the installation page starts the
 * systemd unit (its `norun` systemctl block), the test runs the unit's ExecStartPre and ExecStart
 * command lines, taken from the page's `ini` block, as systemd would, and waits for the daemon's
 * first update check before running the blocks after it.
 *
 * Around them: a real server (in-process, PGlite), a device enrolled through the admin API with
 * its own certificate files (DEVICE_CERT, DEVICE_KEY, SERVER_CA, RELEASE_KEY and
 * CANOPY_DEVICE_URL, which the page asks the reader to set), and, for the simulator, the settings
 * `npm start` would leave: CANOPY_ADMIN_PORT, CANOPY_DEVICE_PORT and a CANOPY_DATA_DIR holding the
 * admin key and the device API's CA.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../server/test/support/server';
import { explainFailure, markdownFiles, runBash, scriptOf, shellBlocks, type ShellBlock } from '../../../site/test/helpers/shellBlocks';
import { createCohort, createFleet, createSigner, DAEMON_ROOT, enrollDevice, eventually, removeTemporaryDirs, temporaryDir } from './support/harness';

const REPO = path.resolve(DAEMON_ROOT, '../..');
const PAGES_DIR = path.join(REPO, 'site/docs/canopy-core/tools/canopy-daemon');
const INSTALL_PAGE = path.join(PAGES_DIR, 'installation.md');
const SYSTEM_PATHS = ['/usr/lib/canopy', '/usr/local/bin', '/etc/canopy', '/var/lib/canopy'];

const pages = [INSTALL_PAGE, ...markdownFiles(PAGES_DIR).filter((f) => f !== INSTALL_PAGE).sort()].map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));
// A block another test runs (`tested-by`, the installer pages' tool commands) is left to it.
const blocks = pages.flatMap((page) => shellBlocks(path.relative(REPO, page.file), page.text)).filter((b) => !/tested-by="/.test(b.meta));

let t: TestServer;
let root: string;
let env: NodeJS.ProcessEnv;
let daemon: ChildProcess | null = null;
beforeAll(async () => {
  t = await startTestServer();
  const fleet = await createFleet(t.api, 'docs');
  const device = await enrollDevice(t, fleet, await createCohort(t.api, fleet, 'docs'), 'docs-device');
  const signer = await createSigner(t.api, temporaryDir(), 'docs');
  root = temporaryDir('canopy-docs-root-');
  const dataDir = temporaryDir('canopy-docs-data-');
  fs.mkdirSync(path.join(dataDir, 'device-api'));
  fs.writeFileSync(path.join(dataDir, 'initial-api-key'), `${t.apiKey}\n`);
  fs.writeFileSync(path.join(dataDir, 'device-api/ca.pem'), t.deviceServerCaPem);
  env = {
    PATH: `${root}/usr/local/bin:${process.env.PATH}`,
    HOME: temporaryDir('canopy-docs-home-'),
    LANG: 'C.UTF-8',
    DEVICE_CERT: device.certPath,
    DEVICE_KEY: device.keyPath,
    SERVER_CA: device.caPath,
    RELEASE_KEY: signer.publicPath,
    CANOPY_DEVICE_URL: t.deviceUrl,
    CANOPY_ADMIN_PORT: new URL(t.url).port,
    CANOPY_DEVICE_PORT: new URL(t.deviceUrl).port,
    CANOPY_DATA_DIR: dataDir,
    NPM_CONFIG_UPDATE_NOTIFIER: 'false',
  };
});
afterAll(async () => {
  if (daemon && daemon.exitCode === null) {
    const exited = new Promise((r) => daemon!.once('exit', r));
    daemon.kill('SIGTERM');
    await exited;
  }
  await t?.close();
  removeTemporaryDirs();
});

/** The text with the device's system paths moved under the temporary root. */
const rooted = (text: string) => SYSTEM_PATHS.reduce((out, dir) => out.replaceAll(dir, `${root}${dir}`), text);
const rootedBlocks = (list: ShellBlock[]) => list.map((block) => ({ ...block, code: rooted(block.code) }));

async function runBlocks(list: ShellBlock[]): Promise<void> {
  const result = await runBash(scriptOf(rootedBlocks(list)), REPO, env, 240_000);
  expect(result.code, explainFailure(rootedBlocks(list), result)).toBe(0);
}

/** A `Key=command line` of the page's systemd unit, split into its words (none is quoted). */
function unitCommand(key: string): string[] {
  const unit = /```ini[^\n]*\n([\s\S]*?)```/.exec(fs.readFileSync(INSTALL_PAGE, 'utf8'))![1];
  const line = unit.split('\n').find((l) => l.startsWith(`${key}=`));
  if (!line) throw new Error(`the unit has no ${key}`);
  return rooted(line.slice(key.length + 1)).split(/\s+/).filter(Boolean);
}

it('every sh block of the daemon pages runs, or says why not; no shell example hides in another language', () => {
  expect(blocks.filter((b) => b.file.endsWith('installation.md')).length).toBeGreaterThanOrEqual(6);
  expect(blocks.filter((b) => b.norun !== null && b.norun.trim().length < 10).map((b) => `${b.file}:${b.line}`)).toEqual([]);
  const hidden = pages.flatMap((page) => [...page.text.matchAll(/^\s*```(bash|shell|console|zsh)\b/gm)].map(() => path.relative(REPO, page.file)));
  expect(hidden).toEqual([]);
});

it('the installation page installs, configures and starts a daemon that checks in; the other pages\' commands run against it', async () => {
  const rootBefore = fs.readdirSync(REPO).sort();
  const runnable = blocks.filter((b) => b.norun === null);
  const systemd = blocks.findIndex((b) => /\bsystemctl\b/.test(b.code));
  expect(systemd).toBeGreaterThan(0);
  const before = blocks.slice(0, systemd).filter((b) => b.norun === null);
  const after = runnable.filter((b) => !before.includes(b));

  await runBlocks(before);
  expect(fs.statSync(path.join(root, 'etc/canopy/device-key.pem')).mode & 0o777).toBe(0o600);

  // What systemd does with the unit: the check, then the daemon, left running.
  const [checkCommand, ...checkArgs] = unitCommand('ExecStartPre');
  const check = spawn(checkCommand, checkArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let checked = '';
  check.stdout!.on('data', (c) => (checked += c));
  expect(await new Promise((r) => check.on('exit', r))).toBe(0);
  expect(checked).toMatch(/canopy-daemon.json: valid \(1 trusted signing key, threshold 1\)/);
  const [command, ...args] = unitCommand('ExecStart');
  let log = '';
  daemon = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  daemon.stdout!.on('data', (c) => (log += c));
  daemon.stderr!.on('data', (c) => (log += c));
  const stateFile = path.join(root, 'var/lib/canopy/state/state.json');
  await eventually(async () => fs.existsSync(stateFile) && JSON.parse(fs.readFileSync(stateFile, 'utf8')).last_check_at, 'the daemon\'s first check').catch((error) => {
    throw new Error(`${error.message}\n${log}`);
  });
  expect(log).toContain('"msg":"started"');

  await runBlocks(after);
  expect(fs.readdirSync(REPO).sort(), 'scratch files were left in the checkout').toEqual(rootBefore);
}, 300_000);
