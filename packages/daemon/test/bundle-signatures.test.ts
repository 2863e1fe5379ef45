/**
 * `bundle_signature_threshold` with the real daemon process against a real server: a bundle
 * without enough bundle signatures by trusted keys is refused before any byte is downloaded,
 * with the reason in its `failed` report; one signed by a trusted key installs. Signatures are
 * made with @canopy/sdk's bundle-signing.ts over the binaries the admin API lists.
 */
import { signBundle } from '@canopy/sdk/bundle-signing';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../server/test/support/server';
import {
  bundleDaemon, createCohort, createFleet, createSigner, DaemonProcess, enrollDevice, eventually, publishRelease, removeTemporaryDirs, temporaryDir, updateReports, writeConfig,
  type Fleet, type Release, type Signer,
} from './support/harness';

let t: TestServer;
let fleet: Fleet;
let trusted: Signer;
let untrusted: Signer;
beforeAll(async () => {
  bundleDaemon();
  t = await startTestServer();
  fleet = await createFleet(t.api, 'bundle-sigs');
  const keys = temporaryDir();
  [trusted, untrusted] = [await createSigner(t.api, keys, 'trusted'), await createSigner(t.api, keys, 'untrusted')];
});
afterAll(async () => {
  await t?.close();
  removeTemporaryDirs();
});

async function signBundleWith(release: Release, signer: Signer): Promise<void> {
  const { binary } = (await t.api('GET', `/binaries/${release.binaryPrn}`)).body;
  const pem = signer.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const signature = signBundle(pem, release.bundlePrn, [{ binary_prn: binary.prn, target: binary.target, size: binary.size, hash: binary.hash }]);
  const res = await t.api('POST', '/bundle_signatures', { bundle_prn: release.bundlePrn, signing_key_prn: signer.prn, signature });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** A device of its own cohort, a release of one file binary (binary-signed by `trusted`), `bundleSigners` sign its bundle; runs the daemon until a final report. */
async function run(name: string, bundleSigners: Signer[]) {
  const cohortPrn = await createCohort(t.api, fleet, name);
  const device = await enrollDevice(t, fleet, cohortPrn, `bundle-sig-${name}`);
  const target = path.join(device.dir, 'installed', 'app.bin');
  const bytes = randomBytes(64 * 1024);
  const release = await publishRelease(t.api, cohortPrn, bytes, { canopy: { installer: 'file', file: { path: target }, reboot_required: false } }, [trusted], name);
  for (const signer of bundleSigners) await signBundleWith(release, signer);
  const daemon = DaemonProcess.start(writeConfig(t, device, [trusted.publicPath], { bundle_signature_threshold: 1 }));
  try {
    const reports = await eventually(async () => {
      const list = await updateReports(t.api, device.prn);
      return list.some((r) => r.status === 'failed' || r.status === 'installed' || r.status === 'confirmed') ? list : null;
    }, `the final report of ${name}`).catch((error) => {
      throw new Error(`${error.message}\n${daemon.lines.map((l) => JSON.stringify(l)).join('\n')}`);
    });
    return { reports, target, bytes, device, daemon };
  } finally {
    await daemon.stop();
  }
}

describe('bundle_signature_threshold', () => {
  it('refuses, before downloading, a bundle with no bundle signature', async () => {
    const { reports, target, device, daemon } = await run('unsigned', []);
    expect(reports.map((r) => r.status)).toEqual(['downloading', 'failed']);
    expect(reports[1].reason).toBe('bundle signature check failed: the bundle carries no bundle signature, 1 required');
    expect(fs.existsSync(target)).toBe(false);
    expect(daemon.lines.filter((l) => /^download/.test(l.msg))).toEqual([]);
    expect(fs.existsSync(path.join(device.dir, 'downloads')) ? fs.readdirSync(path.join(device.dir, 'downloads')) : []).toEqual([]);
  });

  it('refuses a bundle signed only by a key it does not trust', async () => {
    const { reports, target } = await run('untrusted', [untrusted]);
    expect(reports.at(-1)).toMatchObject({ status: 'failed', reason: 'bundle signature check failed: no bundle signature by a trusted key matches the offered binaries' });
    expect(fs.existsSync(target)).toBe(false);
  });

  it('installs a bundle signed by a trusted key', async () => {
    const { reports, target, bytes } = await run('signed', [untrusted, trusted]);
    expect(reports.map((r) => r.status)).not.toContain('failed');
    expect(fs.readFileSync(target).equals(bytes)).toBe(true);
  });
});
