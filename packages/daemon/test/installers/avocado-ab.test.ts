/**
 * The avocado-ab installer on file-backed slots and a file-backed U-Boot environment, with the
 * boot-loader stand-in (support/boot-loader.ts) doing the boot script's part between steps.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DaemonConfig } from '../../src/config/types.ts';
import { avocadoAbInstaller, avocadoAbTrialPending, confirmAvocadoAbTrial, isMounted } from '../../src/installers/avocado-ab.ts';
import type { InstallContext } from '../../src/installers/installer.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import type { ManifestEntry } from '@canopy/sdk/device';
import { powerOn } from '../support/boot-loader.ts';
import { installerTestConfig } from '../support/installer-context.ts';
import { fileEnvironment, HAS_FW_TOOLS, NO_FW_TOOLS_REASON, type FileEnvironment } from '../support/libubootenv.ts';

interface Device {
  env: FileEnvironment;
  slots: { a: string; b: string };
  stateDir: string;
  config: DaemonConfig;
  lines: string[];
  log: Logger;
}

const devices: Device[] = [];
afterEach(() => {
  for (const device of devices.splice(0)) device.env.remove();
});

/** A device running image-A from slot a (slot b holds an older image), with a health check script. */
function device(healthExit: number | null = 0): Device {
  const env = fileEnvironment('redundant');
  const slots = { a: path.join(env.dir, 'slot-a.img'), b: path.join(env.dir, 'slot-b.img') };
  fs.writeFileSync(slots.a, `image-A ${'a'.repeat(4000)}`);
  fs.writeFileSync(slots.b, `image-old ${'o'.repeat(9000)}`);
  let healthCheck: string | undefined;
  if (healthExit !== null) {
    healthCheck = path.join(env.dir, 'health-check.sh');
    // Records the slot it was asked about, so the test sees the check ran against the trial slot.
    fs.writeFileSync(healthCheck, `#!/bin/sh\necho "$CANOPY_SLOT" >> ${env.dir}/health-runs\nexit ${healthExit}\n`, { mode: 0o755 });
  }
  const copies = env.locations.copies.map((copy) => ({ device: copy.device, offset: copy.offset, size: copy.size }));
  const config = installerTestConfig(env.dir, {
    install_timeout: 60,
    health_check: healthCheck,
    uboot_environment: {
      copies,
      variables: { active_slot: 'canopy_active_slot', upgrade_available: 'canopy_upgrade_available', boot_count: 'canopy_boot_count', boot_limit: 'canopy_boot_limit' },
    },
    avocado_ab: { slots },
  });
  env.setenv('canopy_active_slot', 'a');
  const lines: string[] = [];
  const made = { env, slots, stateDir: path.join(env.dir, 'state', 'avocado-ab'), config, lines, log: createLogger({ level: 'debug', write: (line) => lines.push(line) }) };
  devices.push(made);
  return made;
}

function image(name: string, size = 3 * 1024 * 1024 + 17): { file: string; entry: ManifestEntry; bytes: Buffer } {
  const bytes = Buffer.concat([Buffer.from(`${name} `), randomBytes(size - name.length - 1)]);
  const file = path.join(devices[devices.length - 1].env.dir, `${name}.img`);
  fs.writeFileSync(file, bytes);
  const entry: ManifestEntry = {
    binary_prn: `prn:1:org:binary:${name}`,
    artifact: { prn: 'prn:1:org:artifact:x', name: 'rootfs' },
    artifact_version: { prn: 'prn:1:org:artifact_version:x', version: '1.0.0' },
    custom_metadata: { canopy: { installer: 'avocado-ab' } },
    hash: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
    target: 'rootfs',
    url: 'https://unused',
    signatures: [],
  };
  return { file, entry, bytes };
}

function installContext(d: Device, img: { file: string; entry: ManifestEntry }, signal = new AbortController().signal): InstallContext {
  return { file: img.file, entry: img.entry, metadata: { installer: 'avocado-ab', reboot_required: true }, config: d.config, log: d.log, signal, stateDir: d.stateDir };
}

const confirmContext = (d: Device) => ({ config: d.config, log: d.log, signal: new AbortController().signal, stateDir: d.stateDir });
const healthRuns = (d: Device) => (fs.existsSync(path.join(d.env.dir, 'health-runs')) ? fs.readFileSync(path.join(d.env.dir, 'health-runs'), 'utf8').trim().split('\n') : []);

describe.skipIf(!HAS_FW_TOOLS)('avocado-ab installer', () => {
  if (!HAS_FW_TOOLS) console.warn(NO_FW_TOOLS_REASON);

  it('writes the inactive slot, boots it on trial, and makes it permanent when the health check passes', async () => {
    const d = device(0);
    const img = image('image-B');
    expect(powerOn(d.env, d.slots)).toMatchObject({ slot: 'a', image: expect.stringMatching(/^image-A /) });

    const outcome = await avocadoAbInstaller.install(installContext(d, img));
    expect(outcome).toEqual({ rebootRequired: true, slot: 'b' });
    // The slot holds exactly the image (the old, longer content is gone) and slot a is untouched.
    expect(fs.readFileSync(d.slots.b).equals(img.bytes)).toBe(true);
    expect(fs.readFileSync(d.slots.a, 'latin1')).toMatch(/^image-A /);
    expect(d.env.printenv()).toEqual(new Map([['canopy_active_slot', 'b'], ['canopy_boot_count', '0'], ['canopy_upgrade_available', '1']]));
    expect(await avocadoAbInstaller.currentSlot!(d.config)).toBe('b');

    const boot = powerOn(d.env, d.slots);
    expect(boot).toMatchObject({ slot: 'b', image: expect.stringMatching(/^image-B /), fellBack: false });
    expect(d.env.printenv().get('canopy_boot_count')).toBe('1');
    expect(await avocadoAbTrialPending(d.config, d.stateDir)).toBe(true);

    expect(await confirmAvocadoAbTrial(confirmContext(d))).toEqual({ result: 'confirmed', slot: 'b', rebootRequired: false });
    expect(healthRuns(d)).toEqual(['b']);
    expect(d.env.printenv()).toEqual(new Map([['canopy_active_slot', 'b']]));
    expect(await avocadoAbTrialPending(d.config, d.stateDir)).toBe(false);
    // Later boots stay on b and count nothing.
    for (let i = 0; i < 5; i++) expect(powerOn(d.env, d.slots)).toMatchObject({ slot: 'b', fellBack: false });
    expect(d.env.printenv()).toEqual(new Map([['canopy_active_slot', 'b']]));
    // The next update goes to slot a.
    expect(await avocadoAbInstaller.install(installContext(d, image('image-C', 5000)))).toEqual({ rebootRequired: true, slot: 'a' });
  });

  it('a failing health check falls back to the old slot and reports a rollback', async () => {
    const d = device(3);
    await avocadoAbInstaller.install(installContext(d, image('image-B')));
    expect(powerOn(d.env, d.slots)).toMatchObject({ slot: 'b', image: expect.stringMatching(/^image-B /) });

    const outcome = await avocadoAbInstaller.confirm!(confirmContext(d));
    expect(outcome).toEqual({ result: 'rolled_back', reason: 'health_check_failed: health_check exited with 3', slot: 'a', rebootRequired: true });
    expect(healthRuns(d)).toEqual(['b']);
    expect(d.env.printenv()).toEqual(new Map([['canopy_active_slot', 'a'], ['canopy_boot_count', '0']]));
    // After the reboot the old image runs, and nothing is on trial any more.
    expect(powerOn(d.env, d.slots)).toMatchObject({ slot: 'a', image: expect.stringMatching(/^image-A /), fellBack: false });
    expect(await avocadoAbTrialPending(d.config, d.stateDir)).toBe(false);
    expect(d.lines.map((line) => JSON.parse(line).msg)).toContain('avocado-ab health check failed: falling back');
  });

  it('a health check that runs past install_timeout is killed and counts as failed', async () => {
    const d = device(0);
    fs.writeFileSync(d.config.health_check!, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    d.config.install_timeout = 1;
    await avocadoAbInstaller.install(installContext(d, image('image-B', 1000)));
    powerOn(d.env, d.slots);
    const started = Date.now();
    expect(await confirmAvocadoAbTrial(confirmContext(d))).toEqual({ result: 'rolled_back', reason: 'health_check_failed: health_check ran longer than 1 s', slot: 'a', rebootRequired: true });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(powerOn(d.env, d.slots)).toMatchObject({ slot: 'a', image: expect.stringMatching(/^image-A /) });
  });

  it('a slot that never comes up is abandoned by the boot loader after canopy_boot_limit trial boots', async () => {
    const d = device(0);
    d.env.setenv('canopy_boot_limit', '2');
    await avocadoAbInstaller.install(installContext(d, image('image-B')));
    // The new system hangs before the daemon starts: the board is reset again and again.
    expect(powerOn(d.env, d.slots)).toMatchObject({ slot: 'b', fellBack: false });
    expect(powerOn(d.env, d.slots)).toMatchObject({ slot: 'b', fellBack: false });
    expect(powerOn(d.env, d.slots)).toMatchObject({ slot: 'a', image: expect.stringMatching(/^image-A /), fellBack: true });

    expect(await confirmAvocadoAbTrial(confirmContext(d))).toEqual({ result: 'rolled_back', reason: 'boot_limit_reached', slot: 'a', rebootRequired: false });
    expect(healthRuns(d)).toEqual([]); // the trial slot never ran the daemon, so no health check
    expect(await avocadoAbTrialPending(d.config, d.stateDir)).toBe(false);
  });

  it('without a health_check the trial slot is made permanent once the daemon runs on it', async () => {
    const d = device(null);
    await avocadoAbInstaller.install(installContext(d, image('image-B', 1000)));
    powerOn(d.env, d.slots);
    expect(await confirmAvocadoAbTrial(confirmContext(d))).toMatchObject({ result: 'confirmed', slot: 'b' });
  });

  it('an install re-run after its slot switch answers the same; another image waits for the trial to end', async () => {
    const d = device(0);
    const img = image('image-B');
    await avocadoAbInstaller.install(installContext(d, img));
    const slotBytes = fs.readFileSync(d.slots.a);
    // The loop lost track of the first run (power cut before it recorded "rebooting").
    expect(await avocadoAbInstaller.install(installContext(d, img))).toEqual({ rebootRequired: true, slot: 'b' });
    // Slot a, the fallback, was not overwritten.
    expect(fs.readFileSync(d.slots.a).equals(slotBytes)).toBe(true);
    await expect(avocadoAbInstaller.install(installContext(d, image('image-C', 100)))).rejects.toThrow(/trial boot of slot b is pending/);
  });

  it('a confirm interrupted after its environment write answers the same when called again', async () => {
    const d = device(0);
    await avocadoAbInstaller.install(installContext(d, image('image-B', 1000)));
    powerOn(d.env, d.slots);
    const trialRecord = fs.readFileSync(path.join(d.stateDir, 'trial.json'));
    await confirmAvocadoAbTrial(confirmContext(d));
    // Power cut before the record was removed: it is back, the environment already says permanent.
    fs.writeFileSync(path.join(d.stateDir, 'trial.json'), trialRecord);
    expect(await confirmAvocadoAbTrial(confirmContext(d))).toEqual({ result: 'confirmed', slot: 'b', rebootRequired: false });
    expect(healthRuns(d)).toEqual(['b']);
  });

  it('an image whose size does not match the manifest, or an aborted install, leaves the environment alone', async () => {
    const d = device(0);
    const img = image('image-B', 2000);
    const before = d.env.printenv();
    await expect(avocadoAbInstaller.install(installContext(d, { file: img.file, entry: { ...img.entry, size: 1999 } }))).rejects.toThrow(/image is 2000 bytes, the manifest says 1999/);
    await expect(avocadoAbInstaller.install(installContext(d, { file: img.file, entry: { ...img.entry, hash: '0'.repeat(64) } }))).rejects.toThrow(/SHA-256 mismatch/);
    const aborted = new AbortController();
    aborted.abort();
    await expect(avocadoAbInstaller.install(installContext(d, img, aborted.signal))).rejects.toThrow();
    expect(d.env.printenv()).toEqual(before);
    expect(powerOn(d.env, d.slots)).toMatchObject({ slot: 'a', image: expect.stringMatching(/^image-A /) });
  });

  it('refuses to install without the slots or the environment configured, naming the key', async () => {
    const d = device(0);
    const img = image('image-B', 100);
    await expect(avocadoAbInstaller.install({ ...installContext(d, img), config: { ...d.config, avocado_ab: undefined } })).rejects.toThrow(/avocado_ab.slots.a/);
    await expect(avocadoAbInstaller.install({ ...installContext(d, img), config: { ...d.config, uboot_environment: undefined } })).rejects.toThrow(/uboot_environment/);
  });

  it('isMounted recognises a slot mounted under another name (a symlink), as a guard before writing', async () => {
    const d = device(0);
    const link = path.join(d.env.dir, 'by-partlabel-rootfs-b');
    fs.symlinkSync(d.slots.b, link);
    const mounts = path.join(d.env.dir, 'mounts');
    fs.writeFileSync(mounts, `proc /proc proc rw 0 0\n${link} / ext4 rw,relatime 0 0\n`);
    expect(await isMounted(d.slots.b, mounts)).toBe(true);
    expect(await isMounted(d.slots.a, mounts)).toBe(false);
    expect(await isMounted(d.slots.a, path.join(d.env.dir, 'no-such-file'))).toBe(false);
  });
});
