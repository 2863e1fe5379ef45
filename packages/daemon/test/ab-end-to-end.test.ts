/**
 * The A/B update end to end with real canopy-daemon processes: file-backed slots and a file-backed
 * U-Boot environment, the boot-loader stand-in (support/boot-loader.ts, which uses fw_printenv and
 * fw_setenv) run between daemon "boots", and a real server the reports go to.
 *
 * A "reboot" here: the daemon's reboot_command appends to a marker file and the daemon exits
 * (it waits for the reboot); the test runs the boot loader, gives the daemon a new boot id
 * (CANOPY_DAEMON_BOOT_ID_FILE, read instead of /proc/sys/kernel/random/boot_id) and starts it again.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../server/test/support/server';
import { powerOn } from './support/boot-loader';
import {
  bundleDaemon,
  createCohort,
  createFleet,
  createSigner,
  DAEMON_BUNDLE,
  DaemonProcess,
  enrollDevice,
  eventually,
  publishRelease,
  removeTemporaryDirs,
  temporaryDir,
  updateReports,
  writeConfig,
  type Fleet,
  type Signer,
} from './support/harness';
import { fileEnvironment, HAS_FW_TOOLS, NO_FW_TOOLS_REASON, type FileEnvironment } from './support/libubootenv';

const run = promisify(execFile);

let t: TestServer;
let fleet: Fleet;
let signer: Signer;
const environments: FileEnvironment[] = [];
beforeAll(async () => {
  if (!HAS_FW_TOOLS) return;
  bundleDaemon();
  t = await startTestServer();
  fleet = await createFleet(t.api, 'ab-e2e');
  signer = await createSigner(t.api, temporaryDir(), 'ab-e2e');
});
afterAll(async () => {
  await t?.close();
  for (const env of environments.splice(0)) env.remove();
  removeTemporaryDirs();
});

/** A device on slot a (image-A), slot b holding older bytes, its daemon configured for avocado-ab. */
async function abDevice(name: string, healthExit: number) {
  const cohort = await createCohort(t.api, fleet, name);
  const device = await enrollDevice(t, fleet, cohort, name);
  const env = fileEnvironment('redundant');
  environments.push(env);
  env.setenv('canopy_active_slot', 'a');
  const slots = { a: path.join(env.dir, 'slot-a.img'), b: path.join(env.dir, 'slot-b.img') };
  fs.writeFileSync(slots.a, `image-A ${'a'.repeat(5000)}`);
  fs.writeFileSync(slots.b, `image-old ${'o'.repeat(9000)}`);
  const marker = path.join(device.dir, 'reboots');
  const healthRuns = path.join(device.dir, 'health-runs');
  const healthCheck = path.join(device.dir, 'health-check.sh');
  fs.writeFileSync(healthCheck, `#!/bin/sh\necho "$CANOPY_SLOT" >> ${healthRuns}\nexit ${healthExit}\n`, { mode: 0o755 });
  const bootIdFile = path.join(device.dir, 'boot_id');
  const configFile = writeConfig(t, device, [signer.publicPath], {
    reboot_command: ['sh', '-c', `echo reboot >> ${marker}`],
    health_check: healthCheck,
    uboot_environment: { copies: env.locations.copies.map((c) => ({ device: c.device, offset: `0x${c.offset.toString(16)}`, size: `0x${c.size.toString(16)}` })) },
    avocado_ab: { slots },
  });
  const image = Buffer.concat([Buffer.from('image-B '), randomBytes(2 * 1024 * 1024)]);
  const release = await publishRelease(t.api, cohort, image, { canopy: { installer: 'avocado-ab', reboot_required: true } }, [signer], `${name}-rootfs`);

  let boots = 0;
  /** One boot of the device: the daemon started with boot id `boot-N`, until it exits or is stopped. */
  const boot = (sameBootId = false) => {
    if (!sameBootId) boots++;
    fs.writeFileSync(bootIdFile, `boot-${boots}\n`);
    return DaemonProcess.start(configFile, { CANOPY_DAEMON_BOOT_ID_FILE: bootIdFile });
  };
  const reboots = () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').trim().split('\n').length : 0);
  const checksRun = () => (fs.existsSync(healthRuns) ? fs.readFileSync(healthRuns, 'utf8').trim().split('\n') : []);
  const status = async () => JSON.parse((await run(process.execPath, [DAEMON_BUNDLE, 'status', '--config', configFile, '--json'])).stdout);
  return { cohort, device, env, slots, image, release, boot, reboots, checksRun, status };
}

async function exitsWithin(daemon: DaemonProcess, ms = 120_000) {
  const timer = setTimeout(() => daemon.child.kill('SIGKILL'), ms);
  const exit = await daemon.exited;
  clearTimeout(timer);
  expect(exit, daemon.lines.map((l) => JSON.stringify(l)).join('\n')).toEqual({ code: 0, signal: null });
}

describe.skipIf(!HAS_FW_TOOLS)(`A/B update with canopy-daemon processes${HAS_FW_TOOLS ? '' : ` (${NO_FW_TOOLS_REASON})`}`, () => {
  it('a passing health check after the reboot ends installed on the new slot; a restart in the same boot is not taken as the reboot', async () => {
    const d = await abDevice('ab-pass', 0);

    // Boot 1: download, verify, write slot b, switch, ask for the reboot, exit.
    const first = d.boot();
    await exitsWithin(first);
    expect(d.reboots()).toBe(1);
    expect(fs.readFileSync(d.slots.b).equals(d.image)).toBe(true);
    expect(d.env.printenv().get('canopy_upgrade_available')).toBe('1');

    // The daemon alone restarts (same boot id): no health check on the old software, the reboot is asked again.
    const restarted = d.boot(true);
    await exitsWithin(restarted);
    expect(restarted.lines.some((l) => l.msg.startsWith('started in the boot the reboot was asked from'))).toBe(true);
    expect(d.reboots()).toBe(2);
    expect(d.checksRun()).toEqual([]);

    // The boot loader boots the trial slot; boot 2: health check passes, slot b is permanent.
    const booted = powerOn(d.env, d.slots);
    expect(booted).toMatchObject({ slot: 'b', fellBack: false });
    expect(booted.image.startsWith('image-B ')).toBe(true);
    const second = d.boot();
    try {
      await second.waitFor((l) => l.msg === 'update state' && l.event === 'confirmed', 'the confirmation');
      expect(d.checksRun()).toEqual(['b']);
      const vars = d.env.printenv();
      expect(vars.get('canopy_active_slot')).toBe('b');
      expect(vars.has('canopy_upgrade_available')).toBe(false);
      const reports = await eventually(async () => {
        const list = await updateReports(t.api, d.device.prn);
        return list.at(-1)?.status === 'installed' ? list : null;
      }, 'the installed report');
      expect(reports.map((r) => r.status)).toEqual(['downloading', 'installing', 'rebooting', 'installed']);
      expect(reports.every((r) => r.release === d.release.releasePrn)).toBe(true);
      // The next check carries the new release: the server records it.
      await eventually(async () => (await t.api('GET', `/devices/${d.device.prn}`)).body.device.reported_release_prn === d.release.releasePrn, 'the reported release', 30_000);
    } finally {
      await second.stop();
    }
    expect(await d.status()).toMatchObject({ release_prn: d.release.releasePrn, slot: 'b', install_in_progress: null, pending_reports: 0 });
    // The next power on stays on b, with nothing on trial.
    expect(powerOn(d.env, d.slots)).toMatchObject({ slot: 'b', fellBack: false });
    expect(d.reboots()).toBe(2);
  });

  it('a failing health check reports rolled_back with the reason, reboots, runs the old slot, and declines the same release until another comes', async () => {
    const d = await abDevice('ab-fail', 1);

    await exitsWithin(d.boot());
    expect(d.reboots()).toBe(1);
    expect(powerOn(d.env, d.slots)).toMatchObject({ slot: 'b', fellBack: false });

    // Boot 2: the health check fails; the loop reports rolled_back, then asks for the reboot and exits.
    const second = d.boot();
    await exitsWithin(second);
    expect(d.checksRun()).toEqual(['b']);
    expect(d.reboots()).toBe(2);
    // The rollback is saved (its report queued) before the reboot is asked for.
    const rolledBack = second.lines.findIndex((l) => l.msg === 'update state' && l.event === 'rolled_back');
    expect(rolledBack).toBeGreaterThanOrEqual(0);
    expect(second.lines.findIndex((l) => l.msg === 'rebooting into the previous slot')).toBeGreaterThan(rolledBack);
    const vars = d.env.printenv();
    expect(vars.get('canopy_active_slot')).toBe('a');
    expect(vars.has('canopy_upgrade_available')).toBe(false);

    const reports = await eventually(async () => {
      const list = await updateReports(t.api, d.device.prn);
      return list.at(-1)?.status === 'rolled_back' ? list : null;
    }, 'the rolled_back report');
    expect(reports.map((r) => r.status)).toEqual(['downloading', 'installing', 'rebooting', 'rolled_back']);
    expect(reports.at(-1)!.reason).toBe('health_check_failed: health_check exited with 1');
    expect(reports.at(-1)!.release).toBe(d.release.releasePrn);
    expect((await t.api('GET', `/devices/${d.device.prn}`)).body.device.reported_release_prn).not.toBe(d.release.releasePrn);

    // The boot loader boots the old slot again; the daemon's state says so.
    const booted = powerOn(d.env, d.slots);
    expect(booted).toMatchObject({ slot: 'a', fellBack: false });
    expect(booted.image.startsWith('image-A ')).toBe(true);
    expect(await d.status()).toMatchObject({ release_prn: null, slot: 'a', install_in_progress: null, pending_reports: 0, held_back: { release_prn: d.release.releasePrn, outcome: 'rolled_back' } });

    // Boot 3, on slot a: the server offers the same release again (the device still reports the
    // old one); the daemon declines it: no download, no report, no reboot.
    const third = d.boot();
    try {
      const held = await third.waitFor((l) => l.msg === 'update held back', 'the hold');
      expect(held).toMatchObject({ release_prn: d.release.releasePrn, after: 'rolled_back', retry_after: 'a different release' });
    } finally {
      await third.stop();
    }
    expect(third.lines.some((l) => l.msg === 'update offered')).toBe(false);
    expect(d.reboots()).toBe(2);
    expect(await updateReports(t.api, d.device.prn)).toHaveLength(4);

    // A new release is a new offer: taken at once, written to slot b, and the reboot is asked for.
    const image2 = Buffer.concat([Buffer.from('image-C '), randomBytes(1024 * 1024)]);
    const next = await publishRelease(t.api, d.cohort, image2, { canopy: { installer: 'avocado-ab', reboot_required: true } }, [signer], 'ab-fail-rootfs-2');
    const fourth = d.boot();
    await exitsWithin(fourth);
    expect(fourth.lines.find((l) => l.msg === 'update offered')).toMatchObject({ release_prn: next.releasePrn });
    expect(d.reboots()).toBe(3);
    expect(fs.readFileSync(d.slots.b).equals(image2)).toBe(true);
    expect((await d.status()).held_back).toBeNull();
  });
});
