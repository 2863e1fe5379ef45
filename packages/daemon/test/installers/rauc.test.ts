/**
 * The rauc installer against Debian's RAUC: a private D-Bus daemon (given to RAUC as its system
 * bus), `rauc service` with two raw slots in image files and a custom bootloader backend (a shell
 * script keeping primary/state in files), and bundles made by the commands of the docs page
 * (site/docs/canopy-core/tools/canopy-daemon/installers/rauc.md). A "reboot" restarts the service
 * with --override-boot-slot set to what the backend's bootloader would boot.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fencedBlocks } from '../../../../site/test/helpers/shellBlocks';
import { raucInstaller } from '../../src/installers/rauc.ts';
import { onPath } from '../../src/installers/tools.ts';
import { contextFor, scratch, type Scratch } from '../support/installer-context.ts';

const PAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../site/docs/canopy-core/tools/canopy-daemon/installers/rauc.md');
const HAVE_TOOLS = ['rauc', 'dbus-daemon', 'openssl', 'mksquashfs'].every((tool) => onPath(tool));

let s: Scratch;
let bus: ChildProcess;
let service: ChildProcess | null = null;
const boot = (name: string) => path.join(s.dir, 'boot', name);
const read = (name: string) => (fs.existsSync(boot(name)) ? fs.readFileSync(boot(name), 'utf8').trim() : '');

/** Starts `rauc service` as if the bootloader had booted `bootname`, and waits until it answers. */
async function powerOn(bootname: string): Promise<void> {
  if (service) {
    const exited = new Promise((r) => service!.once('exit', r));
    service.kill('SIGTERM');
    await exited;
  }
  fs.writeFileSync(boot('current'), `${bootname}\n`);
  service = spawn('rauc', ['service', `--conf=${path.join(s.dir, 'system.conf')}`, `--override-boot-slot=${bootname}`], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    try {
      execFileSync('rauc', ['status', '--output-format=json'], { stdio: 'pipe' });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error('rauc service did not come up');
}

/** What the bootloader boots: the primary slot unless it is marked bad, then the other. */
const bootloaderChoice = () => {
  const primary = read('primary');
  return read(`state.${primary}`) === 'bad' ? (primary === 'A' ? 'B' : 'A') : primary;
};

/** A bundle of a fresh image, made by the docs page's commands; returns the bundle and the image. */
function bundle(name: string): { file: string; image: Buffer } {
  const dir = path.join(s.dir, name);
  fs.mkdirSync(dir);
  const image = Buffer.concat([Buffer.from(`${name} `), Buffer.alloc(256 * 1024, name)]);
  fs.writeFileSync(path.join(dir, 'rootfs.ext4'), image);
  const block = fencedBlocks(PAGE, fs.readFileSync(PAGE, 'utf8')).find((b) => b.lang === 'sh' && b.meta.includes('rauc.test.ts'))!;
  execFileSync('bash', ['-euo', 'pipefail', '-c', block.code], { cwd: dir, stdio: 'pipe' });
  return { file: path.join(dir, 'example-2.1.0.raucb'), image };
}

const slotHolds = (slot: 'a' | 'b', image: Buffer) => fs.readFileSync(path.join(s.dir, `slot-${slot}.img`)).subarray(0, image.length).equals(image);

beforeAll(async () => {
  if (!HAVE_TOOLS) return;
  s = scratch('rauc', undefined);
  fs.mkdirSync(path.join(s.dir, 'boot'));
  fs.mkdirSync(path.join(s.dir, 'mnt'));
  fs.mkdirSync(path.join(s.dir, 'data'));
  fs.writeFileSync(boot('primary'), 'A\n');
  const backend = path.join(s.dir, 'backend.sh');
  // The custom bootloader backend: set-primary also makes the slot good again (RAUC marked it bad before writing).
  fs.writeFileSync(
    backend,
    `#!/bin/sh\nD=${s.dir}/boot\ncase "$1" in\n  get-primary) cat "$D/primary" ;;\n  set-primary) echo "$2" > "$D/primary"; echo good > "$D/state.$2" ;;\n` +
      `  get-state) cat "$D/state.$2" 2>/dev/null || echo good ;;\n  set-state) echo "$3" > "$D/state.$2" ;;\n  get-current) cat "$D/current" ;;\n  *) exit 1 ;;\nesac\n`,
    { mode: 0o755 },
  );
  for (const slot of ['a', 'b']) fs.writeFileSync(path.join(s.dir, `slot-${slot}.img`), Buffer.alloc(512 * 1024));
  // The keyring is the certificate the page's commands make; the first bundle makes it.
  fs.writeFileSync(
    path.join(s.dir, 'system.conf'),
    `[system]\ncompatible=example-board\nbootloader=custom\ndata-directory=${s.dir}/data\nmountprefix=${s.dir}/mnt\n\n[keyring]\npath=${s.dir}/keyring.pem\n\n` +
      `[handlers]\nbootloader-custom-backend=${backend}\n\n[slot.rootfs.0]\ndevice=${s.dir}/slot-a.img\ntype=raw\nbootname=A\n\n[slot.rootfs.1]\ndevice=${s.dir}/slot-b.img\ntype=raw\nbootname=B\n`,
  );
  const address = `unix:path=${s.dir}/bus`;
  bus = spawn('dbus-daemon', ['--session', '--nofork', `--address=${address}`], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !fs.existsSync(`${s.dir}/bus`); i++) await new Promise((r) => setTimeout(r, 20));
  process.env.DBUS_SYSTEM_BUS_ADDRESS = address;
});

afterAll(async () => {
  if (!HAVE_TOOLS) return;
  for (const child of [service, bus]) {
    if (!child || child.exitCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  delete process.env.DBUS_SYSTEM_BUS_ADDRESS;
  s.remove();
});

it.skipIf(!HAVE_TOOLS)('installs a bundle into the other slot, and after the reboot a passing health check marks it good', async () => {
  const first = bundle('v2');
  fs.copyFileSync(path.join(s.dir, 'v2/release-cert.pem'), path.join(s.dir, 'keyring.pem'));
  await powerOn('A');
  expect(raucInstaller.unavailable!(s.config)).toBeNull();
  const progress: number[] = [];
  const context = { ...contextFor(s, first.file, { installer: 'rauc' }), bootId: 'boot-1', progress: (f: number) => progress.push(f) };
  const started = Date.now();
  await expect(raucInstaller.install(context)).resolves.toEqual({ rebootRequired: true, slot: 'B' });
  const installMs = Date.now() - started;
  expect(installMs).toBeLessThan(10_000);
  expect(slotHolds('b', first.image)).toBe(true);
  expect(read('primary')).toBe('B');
  expect(progress.at(-1)).toBe(1);
  // A restart in the same boot is not the reboot; a later boot is.
  expect(await raucInstaller.trialPending!(s.config, context.stateDir, 'boot-1')).toBe(false);
  expect(await raucInstaller.trialPending!(s.config, context.stateDir, 'boot-2')).toBe(true);
  // The same bundle again before the reboot (a re-run) answers as the first time and writes nothing.
  await expect(raucInstaller.install(context)).resolves.toEqual({ rebootRequired: true, slot: 'B' });

  await powerOn(bootloaderChoice());
  const health = path.join(s.dir, 'health-ok.sh');
  fs.writeFileSync(health, `#!/bin/sh\necho "$CANOPY_SLOT" > ${s.dir}/health-ran\nexit 0\n`, { mode: 0o755 });
  const outcome = await raucInstaller.confirm!({ config: { ...s.config, health_check: health }, log: context.log, signal: context.signal, stateDir: context.stateDir });
  expect(outcome).toEqual({ result: 'confirmed', slot: 'B' });
  expect(fs.readFileSync(path.join(s.dir, 'health-ran'), 'utf8').trim()).toBe('B');
  expect(read('state.B')).toBe('good');
  expect(await raucInstaller.currentSlot!(s.config)).toBe('B');
  expect(await raucInstaller.trialPending!(s.config, context.stateDir, 'boot-3')).toBe(false);
});

it.skipIf(!HAVE_TOOLS)('marks the new slot bad and the old one primary when the health check fails', async () => {
  const next = bundle('v3');
  fs.copyFileSync(path.join(s.dir, 'v3/release-cert.pem'), path.join(s.dir, 'keyring.pem'));
  await powerOn('B'); // the service reads its keyring at start
  const context = { ...contextFor(s, next.file, { installer: 'rauc' }), bootId: 'boot-3' };
  await expect(raucInstaller.install(context)).resolves.toEqual({ rebootRequired: true, slot: 'A' });
  expect(slotHolds('a', next.image)).toBe(true);
  await powerOn(bootloaderChoice());
  const health = path.join(s.dir, 'health-bad.sh');
  fs.writeFileSync(health, '#!/bin/sh\nexit 4\n', { mode: 0o755 });
  const outcome = await raucInstaller.confirm!({ config: { ...s.config, health_check: health }, log: context.log, signal: context.signal, stateDir: context.stateDir });
  expect(outcome).toEqual({ result: 'rolled_back', reason: 'health_check_failed: health_check exited with 4', slot: 'B', rebootRequired: true });
  expect([read('primary'), read('state.A')]).toEqual(['B', 'bad']);
  await powerOn(bootloaderChoice());
  expect(await raucInstaller.currentSlot!(s.config)).toBe('B');
});

it.skipIf(!HAVE_TOOLS)('reports the bootloader\'s fallback, and RAUC\'s refusal of a bundle signed by another key', async () => {
  const next = bundle('v4');
  fs.copyFileSync(path.join(s.dir, 'v4/release-cert.pem'), path.join(s.dir, 'keyring.pem'));
  await powerOn('B');
  const context = { ...contextFor(s, next.file, { installer: 'rauc' }), bootId: 'boot-4' };
  await raucInstaller.install(context);
  // The new slot does not boot: the bootloader runs the old one.
  await powerOn('B');
  const outcome = await raucInstaller.confirm!({ config: s.config, log: context.log, signal: context.signal, stateDir: context.stateDir });
  expect(outcome).toEqual({ result: 'rolled_back', reason: 'boot_fell_back', slot: 'B', rebootRequired: false });

  const stranger = bundle('v5'); // its own new key, not in the keyring
  const before = fs.readFileSync(path.join(s.dir, 'slot-a.img'));
  await expect(raucInstaller.install({ ...contextFor(s, stranger.file, { installer: 'rauc' }), bootId: 'boot-4' })).rejects.toThrow('rauc install failed (exit 1): signature verification failed: Verify error: self-signed certificate');
  expect(fs.readFileSync(path.join(s.dir, 'slot-a.img')).equals(before)).toBe(true);
  expect(fs.existsSync(path.join(context.stateDir, 'trial.json'))).toBe(false);
});
