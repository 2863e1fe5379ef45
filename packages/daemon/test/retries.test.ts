/**
 * What the daemon does after an install failed (update/hold-back.ts): the same offer is not
 * installed again at every poll but after a backoff (one poll interval after the first failure,
 * doubling after each further one), the hold survives a restart, and a retry that succeeds
 * installs and clears it. The rollback half of the rule (an offer that rolled back is declined
 * until another is made) is tested with the A/B installer in ab-end-to-end.test.ts.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../server/test/support/server';
import {
  bundleDaemon, createCohort, createFleet, createSigner, DAEMON_BUNDLE, DaemonProcess, enrollDevice, eventually, publishRelease, removeTemporaryDirs, temporaryDir, updateReports, writeConfig,
  type Fleet, type Signer,
} from './support/harness';

const run = promisify(execFile);

let t: TestServer;
let fleet: Fleet;
let signer: Signer;
beforeAll(async () => {
  bundleDaemon();
  t = await startTestServer();
  fleet = await createFleet(t.api, 'retries');
  signer = await createSigner(t.api, temporaryDir(), 'retries');
});
afterAll(async () => {
  await t?.close();
  removeTemporaryDirs();
});

it('retries a failed install after a poll interval, not at once; the hold survives a restart; the retry installs', async () => {
  const cohortPrn = await createCohort(t.api, fleet, 'retry');
  const device = await enrollDevice(t, fleet, cohortPrn, 'retry');
  const script = path.join(device.dir, 'install.sh');
  const installed = path.join(device.dir, 'installed.bin');
  fs.writeFileSync(script, '#!/bin/sh\necho "no room for it" >&2\nexit 3\n', { mode: 0o755 });
  const bytes = randomBytes(128 * 1024);
  const release = await publishRelease(t.api, cohortPrn, bytes, { canopy: { installer: 'script', script: { path: script }, reboot_required: false } }, [signer], 'retry');
  const config = writeConfig(t, device, [signer.publicPath]); // polls every 10 s, no jitter
  const status = async () => JSON.parse((await run(process.execPath, [DAEMON_BUNDLE, 'status', '--config', config, '--json'])).stdout);

  const first = DaemonProcess.start(config);
  await first.waitFor((l) => l.msg === 'update state' && l.event === 'failed', 'the failed install');
  await first.stop();
  const { held_back } = await status();
  expect(held_back).toMatchObject({ release_prn: release.releasePrn, outcome: 'failed', failures: 1 });
  const failedAt = Date.parse(held_back.at);

  // Restarted at once: its first check is offered the same release, within the backoff.
  const second = DaemonProcess.start(config);
  try {
    const held = await second.waitFor((l) => l.msg === 'update held back', 'the hold');
    expect(held).toMatchObject({ release_prn: release.releasePrn, after: 'failed', failures: 1 });
    expect(Date.parse(held.retry_after as string) - failedAt).toBe(10_000);
    expect(second.lines.some((l) => l.msg === 'update offered')).toBe(false);

    // The cause passes; the next poll (10 s later) tries again and installs.
    fs.writeFileSync(script, `#!/bin/sh\ncp "$1" ${installed}\n`, { mode: 0o755 });
    const offered = await second.waitFor((l) => l.msg === 'update offered', 'the retry', 30_000);
    expect(Date.parse(offered.time as string) - failedAt).toBeGreaterThanOrEqual(10_000);
    await second.waitFor((l) => l.msg === 'update state' && l.event === 'all_installed', 'the install');
  } finally {
    await second.stop();
  }
  expect(fs.readFileSync(installed).equals(bytes)).toBe(true);
  const reports = await eventually(async () => {
    const list = (await updateReports(t.api, device.prn)).map((r) => r.status);
    return list.at(-1) === 'installed' ? list : null;
  }, 'the installed report');
  // One failed attempt, one retry: nothing reported while held back.
  expect(reports.filter((s, i) => s !== 'downloading' || reports[i - 1] !== 'downloading')).toEqual(['downloading', 'installing', 'failed', 'downloading', 'installing', 'installed']);
  expect(await status()).toMatchObject({ release_prn: release.releasePrn, held_back: null });
});
