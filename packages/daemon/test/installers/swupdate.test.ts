/**
 * The swupdate installer against Debian's SWUpdate 2022.12: images made by the commands of the
 * docs page (site/docs/canopy-core/tools/canopy-daemon/installers/swupdate.md: openssl, CMS
 * signature, cpio), installed to a slot that is an image file, and the confirmation after the
 * "reboot" answering U-Boot's boot counting in a file-backed environment (Debian's fw_setenv).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fencedBlocks } from '../../../../site/test/helpers/shellBlocks';
import { createSwupdateInstaller } from '../../src/installers/swupdate.ts';
import { onPath } from '../../src/installers/tools.ts';
import { contextFor, scratch, type Scratch } from '../support/installer-context.ts';
import { fileEnvironment, HAS_FW_TOOLS, type FileEnvironment } from '../support/libubootenv.ts';

const PAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../site/docs/canopy-core/tools/canopy-daemon/installers/swupdate.md');
const HAVE_TOOLS = HAS_FW_TOOLS && ['swupdate', 'openssl', 'cpio'].every((tool) => onPath(tool));

let s: Scratch;
let env: FileEnvironment;
let cfg: string;
const slot = () => path.join(s.dir, 'slot-b.img');

/** An image of `name` made by the page's commands in its own directory (its own new key). */
function swu(name: string): { file: string; image: Buffer; cert: string } {
  const dir = path.join(s.dir, name);
  fs.mkdirSync(dir);
  const image = Buffer.concat([Buffer.from(`${name} `), Buffer.alloc(300 * 1024, name)]);
  fs.writeFileSync(path.join(dir, 'rootfs.img'), image);
  const block = fencedBlocks(PAGE, fs.readFileSync(PAGE, 'utf8')).find((b) => b.lang === 'sh' && b.meta.includes('swupdate.test.ts'))!;
  execFileSync('bash', ['-euo', 'pipefail', '-c', block.code], { cwd: dir, stdio: 'pipe', env: { ...process.env, SLOT_DEVICE: slot() } });
  return { file: path.join(dir, 'example-2.1.0.swu'), image, cert: path.join(dir, 'swu-cert.pem') };
}

/** The device trusts `cert` (its /etc/swupdate.cfg) and is hardware revision 1.0. */
function trust(cert: string) {
  fs.writeFileSync(cfg, `globals :\n{\n\tpublic-key-file = "${cert}";\n};\n`);
}

const installer = () => createSwupdateInstaller({ args: ['-f', cfg, '-H', 'board:1.0'] });
const config = (health?: string) => ({
  ...s.config,
  health_check: health,
  uboot_environment: {
    copies: env.locations.copies.map((c) => ({ device: c.device, offset: c.offset, size: c.size })),
    variables: { active_slot: 'canopy_active_slot', upgrade_available: 'canopy_upgrade_available', boot_count: 'canopy_boot_count', boot_limit: 'canopy_boot_limit' },
  },
});
const healthScript = (code: number) => {
  const file = path.join(s.dir, `health-${code}.sh`);
  fs.writeFileSync(file, `#!/bin/sh\nexit ${code}\n`, { mode: 0o755 });
  return file;
};
/** What the .swu's bootenv and U-Boot leave on the first boot of the new slot. */
function onTrialBoot() {
  env.setenv('upgrade_available', '1');
  env.setenv('bootlimit', '3');
  env.setenv('bootcount', '1');
}

beforeAll(() => {
  if (!HAVE_TOOLS) return;
  s = scratch('swupdate');
  env = fileEnvironment('redundant');
  cfg = path.join(s.dir, 'swupdate.cfg');
  fs.writeFileSync(slot(), Buffer.alloc(512 * 1024));
});
afterAll(() => {
  if (!HAVE_TOOLS) return;
  env.remove();
  s.remove();
});

it.skipIf(!HAVE_TOOLS)('installs a signed .swu to its slot, and after the reboot a passing health check ends U-Boot\'s trial', async () => {
  const image = swu('v2');
  trust(image.cert);
  expect(installer().unavailable!(s.config)).toBeNull();
  const progress: number[] = [];
  const context = { ...contextFor(s, image.file, { installer: 'swupdate' }), bootId: 'boot-1', progress: (f: number) => progress.push(f) };
  const started = Date.now();
  await expect(installer().install(context)).resolves.toEqual({ rebootRequired: true });
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(fs.readFileSync(slot()).subarray(0, image.image.length).equals(image.image)).toBe(true);
  expect(progress).toEqual([0.05, 0.2, 0.3, 0.5, 1]);
  expect(await installer().trialPending!(s.config, context.stateDir, 'boot-1')).toBe(false);
  expect(await installer().trialPending!(s.config, context.stateDir, 'boot-2')).toBe(true);

  onTrialBoot();
  const outcome = await installer().confirm!({ config: config(healthScript(0)), log: context.log, signal: context.signal, stateDir: context.stateDir });
  expect(outcome).toEqual({ result: 'confirmed' });
  const vars = env.printenv();
  expect([vars.get('upgrade_available'), vars.get('bootcount')]).toEqual(['0', '0']);
  expect(await installer().trialPending!(s.config, context.stateDir, 'boot-3')).toBe(false);
});

it.skipIf(!HAVE_TOOLS)('a failing health check sets bootcount to bootlimit and asks for the reboot back', async () => {
  const image = swu('v3');
  trust(image.cert);
  const context = contextFor(s, image.file, { installer: 'swupdate' });
  await installer().install(context);
  onTrialBoot();
  const outcome = await installer().confirm!({ config: config(healthScript(5)), log: context.log, signal: context.signal, stateDir: context.stateDir });
  expect(outcome).toEqual({ result: 'rolled_back', reason: 'health_check_failed: health_check exited with 5', rebootRequired: true });
  expect([env.printenv().get('upgrade_available'), env.printenv().get('bootcount')]).toEqual(['1', '3']);
});

it.skipIf(!HAVE_TOOLS)('fails with SWUpdate\'s reason for a tampered image, another key or another hardware revision, recording no trial', async () => {
  const image = swu('v4');
  trust(image.cert);
  const before = fs.readFileSync(slot());
  const tampered = path.join(s.dir, 'tampered.swu');
  const bytes = fs.readFileSync(image.file);
  bytes.write('XXXX', bytes.length - 2000);
  fs.writeFileSync(tampered, bytes);
  const context = contextFor(s, tampered, { installer: 'swupdate' });
  await expect(installer().install(context)).rejects.toThrow(/^swupdate failed \(exit 1\): ERROR : HASH mismatch/);
  const stranger = swu('v5'); // signed by its own new key, which the device does not trust
  await expect(installer().install(contextFor(s, stranger.file, { installer: 'swupdate' }))).rejects.toThrow(/^swupdate failed \(exit 1\): .*(signature|verif|Signature)/i);
  const otherBoard = createSwupdateInstaller({ args: ['-f', cfg, '-H', 'board:9.9'] });
  await expect(otherBoard.install(contextFor(s, image.file, { installer: 'swupdate' }))).rejects.toThrow(/^swupdate failed \(exit 1\): .*(hardware|Hardware|revision)/i);
  expect(fs.readFileSync(slot()).equals(before)).toBe(true);
  expect(fs.existsSync(path.join(context.stateDir, 'trial.json'))).toBe(false);
  // An image that needs no reboot records nothing: it is installed at once.
  await expect(installer().install(contextFor(s, image.file, { installer: 'swupdate', reboot_required: false }))).resolves.toEqual({ rebootRequired: false });
  expect(fs.existsSync(path.join(context.stateDir, 'trial.json'))).toBe(false);
});
