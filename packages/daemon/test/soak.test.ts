/**
 * Success after a soak with the daemon as a real process: after installing a release with
 * `soak_seconds` it runs its `health_check` again and again, reports `healthy`, and stops once
 * the server confirms it (rollout progress: soaking, then confirmed; a `device.soak_passed`
 * event). A device whose health check starts failing within the soak reports `failed` with the
 * check's reason, which the server counts as a soak failure.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { createCohort, DAEMON_BUNDLE, DaemonProcess, enrollDevice, eventually, publishRelease, updateReports, useDaemonTestServer, writeConfig } from './support/harness';

const context = useDaemonTestServer('soak');
const SOAK_SECONDS = 5;

async function soakingDevice(name: string) {
  const cohortPrn = await createCohort(context.t.api, context.fleet, name);
  const device = await enrollDevice(context.t, context.fleet, cohortPrn, name);
  const install = path.join(device.dir, 'install.sh');
  fs.writeFileSync(install, `#!/bin/sh\ncp "$1" ${path.join(device.dir, 'installed.bin')}\n`, { mode: 0o755 });
  // Healthy until the flag file appears: a device that breaks some time after its install.
  const broken = path.join(device.dir, 'broken');
  const check = path.join(device.dir, 'health.sh');
  fs.writeFileSync(check, `#!/bin/sh\necho checked >> ${path.join(device.dir, 'checks')}\n[ ! -e ${broken} ]\n`, { mode: 0o755 });
  const release = await publishRelease(context.t.api, cohortPrn, randomBytes(4096), { canopy: { installer: 'script', script: { path: install }, reboot_required: false } }, [context.signer], name);
  expect((await context.t.api('PATCH', `/releases/${release.releasePrn}`, { soak_seconds: SOAK_SECONDS })).status).toBe(200);
  const config = writeConfig(context.t, device, [context.signer.publicPath], { health_check: check });
  return { device, release, config, broken, checks: () => (fs.existsSync(path.join(device.dir, 'checks')) ? fs.readFileSync(path.join(device.dir, 'checks'), 'utf8').split('\n').length - 1 : 0) };
}

const rollout = async (prn: string) => (await context.t.api('GET', `/releases/${prn}/rollout`)).body.rollout;

it('reports health through the soak until the server confirms the device, then stops', { timeout: 90_000 }, async () => {
  const { device, release, config, checks } = await soakingDevice('soak-pass');
  const daemon = DaemonProcess.start(config);
  try {
    await daemon.waitFor((l) => l.msg === 'update state' && l.event === 'all_installed', 'the install');
    await eventually(async () => ((await rollout(release.releasePrn)).soaking === 1 ? true : null), 'the device soaking');
    const status = JSON.parse(execFileSync(process.execPath, [DAEMON_BUNDLE, 'status', '--config', config, '--json'], { encoding: 'utf8' }));
    expect(status.soak).toMatchObject({ release_prn: release.releasePrn, seconds: SOAK_SECONDS });
    expect(await rollout(release.releasePrn)).toMatchObject({ succeeded: 0, soaking: 1, soak_seconds: SOAK_SECONDS });
    const ended = await daemon.waitFor((l) => l.msg === 'soak ended', 'the end of the soak', 30_000);
    expect(ended).toMatchObject({ release_prn: release.releasePrn, outcome: 'passed' });
    expect(await rollout(release.releasePrn)).toMatchObject({ succeeded: 1, soaking: 0, reported: { installed: 0, confirmed: 1 } });
    const healthy = (await updateReports(context.t.api, device.prn)).filter((r) => r.status === 'healthy');
    // One a second (a tenth of the soak, at least 1 s), the last just after the soak's end.
    expect(healthy.length).toBeGreaterThanOrEqual(SOAK_SECONDS - 1);
    expect(checks()).toBe(healthy.length);
    const passed = (await context.t.api('GET', `/events?type=device&subtype=soak_passed&resource_prn=${encodeURIComponent(device.prn)}`)).body.events;
    expect(passed).toHaveLength(1);
    // Then it stops checking.
    const after = checks();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(checks()).toBe(after);
  } finally {
    await daemon.stop();
  }
});

it('reports a health check failing within the soak as failed, which counts against the release', { timeout: 90_000 }, async () => {
  const { device, release, config, broken } = await soakingDevice('soak-fail');
  const daemon = DaemonProcess.start(config);
  try {
    await eventually(async () => ((await updateReports(context.t.api, device.prn)).some((r) => r.status === 'healthy') ? true : null), 'a healthy report');
    fs.writeFileSync(broken, '');
    const reports = await eventually(async () => {
      const list = await updateReports(context.t.api, device.prn);
      return list.at(-1)?.status === 'failed' ? list : null;
    }, 'the failed report', 30_000);
    expect(reports.at(-1)).toMatchObject({ status: 'failed', release: release.releasePrn, reason: 'soak: health_check exited with 1' });
    expect(await rollout(release.releasePrn)).toMatchObject({ succeeded: 0, soaking: 0, reported: { failed: 1, confirmed: 0 } });
    const failed = (await context.t.api('GET', `/events?type=device&subtype=soak_failed&resource_prn=${encodeURIComponent(device.prn)}`)).body.events;
    expect(failed).toHaveLength(1);
  } finally {
    await daemon.stop();
  }
});
