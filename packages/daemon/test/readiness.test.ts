/**
 * Device readiness (update/readiness.ts) with the daemon as a real process: its readiness
 * command says "not now" and the offered update is deferred (nothing downloaded; a `deferred`
 * report with the reason, counted by rollout progress); once the command says ready, the next
 * poll downloads and installs it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import {
  createCohort, DaemonProcess, enrollDevice, eventually, publishRelease, temporaryDir, updateReports, useDaemonTestServer, writeConfig,
} from './support/harness';

const context = useDaemonTestServer('readiness');

it('defers an offered update while the readiness command says not now, installs it at the poll after it says ready', { timeout: 60_000 }, async () => {
  const cohortPrn = await createCohort(context.t.api, context.fleet, 'ready');
  const device = await enrollDevice(context.t, context.fleet, cohortPrn, 'ready');
  const installed = path.join(device.dir, 'installed.bin');
  const install = path.join(device.dir, 'install.sh');
  fs.writeFileSync(install, `#!/bin/sh\ncp "$1" ${installed}\n`, { mode: 0o755 });
  const ready = path.join(device.dir, 'ready.sh');
  fs.writeFileSync(ready, '#!/bin/sh\necho "vehicle moving"\nexit 1\n', { mode: 0o755 });
  const bytes = randomBytes(64 * 1024);
  const release = await publishRelease(context.t.api, cohortPrn, bytes, { canopy: { installer: 'script', script: { path: install }, reboot_required: false } }, [context.signer], 'ready');
  const config = writeConfig(context.t, device, [context.signer.publicPath], { readiness_command: [ready], readiness_timeout: 5 }); // polls every 10 s

  const daemon = DaemonProcess.start(config);
  try {
    const deferred = await daemon.waitFor((l) => l.msg === 'update deferred', 'the deferral');
    expect(deferred).toMatchObject({ release_prn: release.releasePrn, reason: 'vehicle moving' });
    expect(daemon.lines.some((l) => l.msg === 'update offered')).toBe(false);
    const reports = await eventually(async () => {
      const list = await updateReports(context.t.api, device.prn);
      return list.length > 0 ? list : null;
    }, 'the deferral report');
    expect(reports[0]).toMatchObject({ status: 'deferred', reason: 'vehicle moving', release: release.releasePrn });
    const rollout = (await context.t.api('GET', `/releases/${release.releasePrn}/rollout`)).body.rollout;
    expect(rollout).toMatchObject({ deferred: 1, reported: { deferred: 1 } });

    fs.writeFileSync(ready, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const offered = await daemon.waitFor((l) => l.msg === 'update offered', 'the offer once ready', 30_000);
    expect(Date.parse(offered.time as string) - Date.parse(deferred.time as string)).toBeGreaterThanOrEqual(9_000);
    await daemon.waitFor((l) => l.msg === 'update state' && l.event === 'all_installed', 'the install');
  } finally {
    await daemon.stop();
  }
  expect(fs.readFileSync(installed).equals(bytes)).toBe(true);
  await eventually(async () => ((await updateReports(context.t.api, device.prn)).at(-1)?.status === 'installed' ? true : null), 'the installed report');
  expect((await context.t.api('GET', `/releases/${release.releasePrn}/rollout`)).body.rollout).toMatchObject({ deferred: 0, succeeded: 1 });
});
