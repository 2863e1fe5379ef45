/**
 * SIGKILL of the daemon process in the middle of a download and in the middle of an install,
 * then a restart from the same state dir: the download resumes from the bytes on disk (HTTP
 * Range), the install runs again to completion, the binary is installed once and reported
 * `installed` once, and no report is lost.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../server/test/support/server';
import {
  bundleDaemon, createCohort, createFleet, createSigner, DaemonProcess, enrollDevice, eventually, publishRelease, removeTemporaryDirs, temporaryDir, updateReports, writeConfig,
  type Fleet, type Signer,
} from './support/harness';
import { freePort } from '../../server/test/support/server-process';
import { startSlowProxy, type SlowProxy } from './support/slow-proxy';

let t: TestServer;
let proxy: SlowProxy;
let fleet: Fleet;
let signer: Signer;
beforeAll(async () => {
  bundleDaemon();
  // Download URLs point at a proxy that sends 4 MiB/s, so a kill lands mid-download.
  // The server hands out its own address as the public URL when it listens on port 0, so it gets
  // a port that was free a moment ago, and the proxy's URL as its public URL.
  proxy = await startSlowProxy(4 * 1024 * 1024);
  t = await startTestServer({ adminPort: await freePort(), publicUrl: proxy.url });
  proxy.target = t.url;
  fleet = await createFleet(t.api, 'crash');
  signer = await createSigner(t.api, temporaryDir(), 'release');
});
afterAll(async () => {
  await t?.close();
  await proxy?.close();
  removeTemporaryDirs();
});

const statuses = async (devicePrn: string) => (await updateReports(t.api, devicePrn)).map((r) => r.status);

it('resumes a download cut by SIGKILL from the bytes on disk, and installs once', async () => {
  const cohortPrn = await createCohort(t.api, fleet, 'download-kill');
  const device = await enrollDevice(t, fleet, cohortPrn, 'download-kill');
  const target = path.join(device.dir, 'app', 'firmware.bin');
  const bytes = randomBytes(12 * 1024 * 1024);
  await publishRelease(t.api, cohortPrn, bytes, { canopy: { installer: 'file', file: { path: target }, reboot_required: false } }, [signer], 'download-kill');
  const config = writeConfig(t, device, [signer.publicPath]);

  const first = DaemonProcess.start(config);
  const partial = path.join(device.dir, 'downloads');
  const cutAt = await eventually(async () => {
    const part = fs.existsSync(partial) ? fs.readdirSync(partial).find((f) => f.endsWith('.part')) : undefined;
    const size = part ? fs.statSync(path.join(partial, part)).size : 0;
    return size > 2 * 1024 * 1024 ? size : null;
  }, 'a partial download').catch((error) => {
    throw new Error(`${error.message}\n${first.lines.map((l) => JSON.stringify(l)).join('\n')}`);
  });
  await first.kill();
  expect(cutAt).toBeLessThan(bytes.length);
  expect(fs.existsSync(target)).toBe(false);

  const second = DaemonProcess.start(config);
  try {
    const resumed = await second.waitFor((l) => l.msg === 'download resuming', 'the resume');
    expect(resumed.offset).toBeGreaterThanOrEqual(cutAt);
    expect(resumed.offset).toBeLessThan(bytes.length);
    await second.waitFor((l) => l.msg === 'update state' && l.event === 'all_installed', 'the install');
    expect(fs.readFileSync(target).equals(bytes)).toBe(true);
    const reported = await eventually(async () => {
      const list = await statuses(device.prn);
      return list.at(-1) === 'installed' ? list : null;
    }, 'the installed report');
    // Progress reports during the download vary; after them, exactly one installing and one installed.
    expect(reported[0]).toBe('downloading');
    expect(reported.filter((s) => s === 'installing')).toHaveLength(1);
    expect(reported.filter((s) => s === 'installed')).toHaveLength(1);
    expect(reported.filter((s) => s !== 'downloading' && s !== 'installing' && s !== 'installed')).toEqual([]);
  } finally {
    await second.stop();
  }
});

it('runs an install cut by SIGKILL again after the restart, and reports installed once', async () => {
  const cohortPrn = await createCohort(t.api, fleet, 'install-kill');
  const device = await enrollDevice(t, fleet, cohortPrn, 'install-kill');
  const target = path.join(device.dir, 'app', 'payload.bin');
  const journal = path.join(device.dir, 'script.log');
  const script = path.join(device.dir, 'install.sh');
  // The install script: notes its start (and pid), takes its time, installs, notes the end.
  fs.writeFileSync(
    script,
    `#!/bin/sh\nset -e\necho "start $$" >> '${journal}'\nsleep 2\nmkdir -p '${path.dirname(target)}'\ncp "$1" '${target}.tmp'\nmv '${target}.tmp' '${target}'\necho done >> '${journal}'\n`,
    { mode: 0o755 },
  );
  const bytes = randomBytes(64 * 1024);
  await publishRelease(t.api, cohortPrn, bytes, { canopy: { installer: 'script', script: { path: script, timeout_seconds: 60 }, reboot_required: false } }, [signer], 'install-kill');
  const config = writeConfig(t, device, [signer.publicPath]);

  const first = DaemonProcess.start(config);
  const scriptPid = await eventually(async () => {
    const started = fs.existsSync(journal) ? /^start (\d+)$/m.exec(fs.readFileSync(journal, 'utf8')) : null;
    return started ? Number(started[1]) : null;
  }, 'the install script to start');
  // A power cut: the daemon and the script it started both die at once.
  await first.kill();
  process.kill(scriptPid, 'SIGKILL');
  expect(fs.existsSync(target)).toBe(false);
  const state = JSON.parse(fs.readFileSync(path.join(device.dir, 'state', 'state.json'), 'utf8'));
  expect(state.phase.name).toBe('installing');

  const second = DaemonProcess.start(config);
  try {
    await second.waitFor((l) => l.msg === 'update state' && l.event === 'all_installed', 'the install after the restart');
    expect(fs.readFileSync(target).equals(bytes)).toBe(true);
    expect(fs.readFileSync(journal, 'utf8').trim().split('\n').map((l) => l.split(' ')[0])).toEqual(['start', 'start', 'done']);
    const reported = await eventually(async () => {
      const list = await statuses(device.prn);
      return list.at(-1) === 'installed' ? list : null;
    }, 'the installed report');
    expect(reported).toEqual(['downloading', 'installing', 'installed']);
  } finally {
    await second.stop();
  }
});

it('reboots after an install that needs it, confirms at the next start and reports installed', async () => {
  const cohortPrn = await createCohort(t.api, fleet, 'reboot');
  const device = await enrollDevice(t, fleet, cohortPrn, 'reboot');
  const target = path.join(device.dir, 'app', 'config.bin');
  const rebooted = path.join(device.dir, 'rebooted');
  const reboot = path.join(device.dir, 'reboot.sh');
  fs.writeFileSync(reboot, `#!/bin/sh\ntouch '${rebooted}'\n`, { mode: 0o755 });
  const bytes = randomBytes(32 * 1024);
  const release = await publishRelease(t.api, cohortPrn, bytes, { canopy: { installer: 'file', file: { path: target }, reboot_required: true } }, [signer], 'reboot');
  const config = writeConfig(t, device, [signer.publicPath], { reboot_command: [reboot] });
  // The "reboot" is a restart of the daemon with a new boot id (the real one would not change).
  const bootId = path.join(device.dir, 'boot_id');
  const bootEnv = { CANOPY_DAEMON_BOOT_ID_FILE: bootId };
  fs.writeFileSync(bootId, 'boot-1\n');

  // The daemon installs, reports rebooting, runs the reboot command and stops to wait for it.
  const before = DaemonProcess.start(config, bootEnv);
  expect((await before.exited).code).toBe(0);
  expect(fs.existsSync(rebooted)).toBe(true);
  expect(fs.readFileSync(target).equals(bytes)).toBe(true);
  expect(before.lines.at(-1)?.msg).toBe('waiting for the reboot');
  expect(await statuses(device.prn)).toEqual(['downloading', 'installing', 'rebooting']);

  // The start after the boot confirms the install, reports it, and checks with the new release.
  fs.writeFileSync(bootId, 'boot-2\n');
  const after = DaemonProcess.start(config, bootEnv);
  try {
    await after.waitFor((l) => l.msg === 'update state' && l.event === 'confirmed', 'the confirmation');
    await eventually(async () => (await statuses(device.prn)).at(-1) === 'installed', 'the installed report');
    expect(await statuses(device.prn)).toEqual(['downloading', 'installing', 'rebooting', 'installed']);
    await eventually(async () => (await t.api('GET', `/devices/${device.prn}`)).body.device.reported_release_prn === release.releasePrn, 'the reported release');
  } finally {
    await after.stop();
  }
});
