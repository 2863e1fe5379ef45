/**
 * `canopy-daemon init DIR` against a real server, as processes: the folder it writes is a device
 * that the server admits by just-in-time provisioning into the cohort, and that installs a
 * release made with the folder's custom metadata; init refuses to overwrite it without --force.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../server/test/support/server';
import { bundleDaemon, createFleet, createSigner, DaemonProcess, eventually, publishRelease, removeTemporaryDirs, temporaryDir, updateReports, type Fleet, type Signer } from './support/harness';

let t: TestServer;
let fleet: Fleet;
let signer: Signer;
let serverCa: string;
beforeAll(async () => {
  bundleDaemon();
  t = await startTestServer();
  fleet = await createFleet(t.api, 'init');
  signer = await createSigner(t.api, temporaryDir(), 'init');
  serverCa = path.join(temporaryDir(), 'ca.pem');
  fs.writeFileSync(serverCa, t.deviceServerCaPem);
});
afterAll(async () => {
  await t?.close();
  removeTemporaryDirs();
});

async function init(dir: string, ...extra: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const args = ['init', dir, '--cohort-prn', fleet.cohortPrn, '--signing-key-prn', signer.prn, '--identifier', 'init-trial-1', '--target', 'x86_64-linux', '--device-url', t.deviceUrl, '--server-ca', serverCa, ...extra];
  const run = new DaemonProcess(args, { CANOPY_URL: t.url, CANOPY_API_KEY: t.apiKey });
  const { code } = await run.exited;
  return { code, out: run.lines.map((l) => l.msg).join('\n'), err: run.stderr };
}

it('writes a folder that is a device: admitted by JITP, installs a release with the file installer, reboots nothing', async () => {
  const dir = path.join(temporaryDir(), 'trial');
  const first = await init(dir);
  expect(first.code, first.err).toBe(0);
  expect(first.out).toContain(`run it: canopy-daemon --config ${dir}/canopy-daemon.json`);
  expect(fs.readdirSync(dir).sort()).toEqual(['canopy-daemon.json', 'custom-metadata.json', 'device-key.pem', 'device.pem', 'release.pub.pem', 'server-ca.pem']);
  expect(fs.statSync(path.join(dir, 'device-key.pem')).mode & 0o777).toBe(0o600);
  expect(fs.readFileSync(path.join(dir, 'release.pub.pem'), 'utf8')).toBe(fs.readFileSync(signer.publicPath, 'utf8'));

  const bytes = randomBytes(100_000);
  const metadata = JSON.parse(fs.readFileSync(path.join(dir, 'custom-metadata.json'), 'utf8'));
  const release = await publishRelease(t.api, fleet.cohortPrn, bytes, metadata, [signer], 'init-release');
  const daemon = DaemonProcess.start(path.join(dir, 'canopy-daemon.json'));
  try {
    const target = path.join(dir, 'installed/app.bin');
    await eventually(async () => fs.existsSync(target) && fs.readFileSync(target).equals(bytes), 'the release installed into the folder').catch((error) => {
      throw new Error(`${error.message}\n${daemon.lines.map((l) => JSON.stringify(l)).join('\n')}\n${daemon.stderr}`);
    });
    const devices = (await t.api('GET', `/devices?search=${encodeURIComponent("identifier:'init-trial-1'")}`)).body.devices;
    expect(devices).toHaveLength(1);
    expect(devices[0]).toMatchObject({ cohort_prn: fleet.cohortPrn, target: 'x86_64-linux' });
    const reports = await eventually(async () => {
      const list = await updateReports(t.api, devices[0].prn);
      return list.some((r) => r.status === 'installed') && list;
    }, 'the installed report');
    expect(reports.at(-1)).toMatchObject({ status: 'installed', release: release.releasePrn });
    expect(fs.existsSync(path.join(dir, 'reboots.log'))).toBe(false);
  } finally {
    await daemon.stop();
  }

  // Run again: refused, the folder untouched; with --force, a fresh identity (a new device).
  const before = fs.readFileSync(path.join(dir, 'device.pem'), 'utf8');
  const again = await init(dir);
  expect(again.code).toBe(1);
  expect(again.err).toMatch(/already holds a setup \(canopy-daemon\.json, .*\); --force replaces it/);
  expect(fs.readFileSync(path.join(dir, 'device.pem'), 'utf8')).toBe(before);
  const forced = await init(dir, '--force', '--identifier', 'init-trial-2');
  expect(forced.code, forced.err).toBe(0);
  expect(fs.readFileSync(path.join(dir, 'device.pem'), 'utf8')).not.toBe(before);
  expect(fs.existsSync(path.join(dir, 'state'))).toBe(false);
}, 120_000);

it('says what is missing and writes nothing when the server cannot be used', async () => {
  const dir = path.join(temporaryDir(), 'trial');
  const missingCa = await init(dir, '--server-ca', path.join(dir, 'nope.pem'));
  expect(missingCa.code).toBe(1);
  expect(missingCa.err).toMatch(/cannot read the device API CA \(--server-ca\) .*nope\.pem \(ENOENT\)/);
  const unknownCohort = await init(dir, '--cohort-prn', fleet.cohortPrn.replace(/[^:]+$/, '00000000-0000-0000-0000-000000000000'));
  expect(unknownCohort.code).toBe(1);
  expect(unknownCohort.err).toMatch(/GET \/cohorts\/.* answered 404/);
  expect(fs.existsSync(dir)).toBe(false);
});
