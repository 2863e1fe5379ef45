/**
 * What the daemon refuses to install: a binary whose stored bytes were altered, one signed by a
 * key it does not trust, one with too few trusted signatures for `signature_threshold`, one
 * whose stored size differs from the declared size, and, before downloading anything, one for an
 * installer this device lacks or its metadata does not name. Each time nothing is installed and
 * the server gets a `failed` report with the reason.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../server/test/support/server';
import { INSTALLER_NAMES } from '../src/installers/metadata.ts';
import {
  bundleDaemon, createCohort, createFleet, createSigner, DaemonProcess, enrollDevice, eventually, publishRelease, removeTemporaryDirs, replaceWholeBlobs, storedBlobs, temporaryDir, updateReports, writeConfig,
  type Fleet, type Signer,
} from './support/harness';

let t: TestServer;
let fleet: Fleet;
let trusted: Signer;
let second: Signer;
let untrusted: Signer;
beforeAll(async () => {
  bundleDaemon();
  t = await startTestServer();
  fleet = await createFleet(t.api, 'refusals');
  const keys = temporaryDir();
  [trusted, second, untrusted] = [await createSigner(t.api, keys, 'trusted'), await createSigner(t.api, keys, 'second'), await createSigner(t.api, keys, 'untrusted')];
});
afterAll(async () => {
  await t?.close();
  removeTemporaryDirs();
});

/**
 * A device in a cohort of its own with a release of `bytes` signed by `signers`, `tamper`
 * applied to the stored copy; runs the daemon until it reports `failed`; answers the reason.
 */
async function refusedWith(
  name: string,
  signers: Signer[],
  options: { tamper?: (file: string) => void; whole?: (bytes: Buffer) => Buffer; trust?: Signer[]; threshold?: number; metadata?: (target: string) => object; beforeDownload?: boolean } = {},
): Promise<string> {
  const cohortPrn = await createCohort(t.api, fleet, name);
  const device = await enrollDevice(t, fleet, cohortPrn, `refusal-${name}`);
  const target = path.join(device.dir, 'installed', 'app.bin');
  const bytes = randomBytes(256 * 1024);
  const metadata = options.metadata?.(target) ?? { canopy: { installer: 'file', file: { path: target }, reboot_required: false } };
  const release = await publishRelease(t.api, cohortPrn, bytes, metadata, signers, name);
  if (options.tamper) for (const file of storedBlobs(t, bytes)) options.tamper(file);
  if (options.whole) expect(replaceWholeBlobs(t, options.whole(bytes))).toBeGreaterThan(0);
  const trustedKeys = (options.trust ?? [trusted]).map((s) => s.publicPath);
  const daemon = DaemonProcess.start(writeConfig(t, device, trustedKeys, options.threshold ? { signature_threshold: options.threshold } : {}));
  try {
    const reports = await eventually(async () => {
      const list = await updateReports(t.api, device.prn);
      return list.some((r) => r.status === 'failed') ? list : null;
    }, `the failed report of ${name}`).catch((error) => {
      throw new Error(`${error.message}\n${daemon.lines.map((l) => JSON.stringify(l)).join('\n')}`);
    });
    expect(reports.map((r) => r.status)).toEqual(['downloading', 'failed']);
    expect(reports[1].release).toBe(release.releasePrn);
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.existsSync(path.dirname(target))).toBe(false);
    // Nothing of the refused binary is kept to be installed later.
    const downloads = path.join(device.dir, 'downloads');
    const downloaded = fs.existsSync(downloads) ? fs.readdirSync(downloads) : [];
    expect(downloaded.filter((f) => f.endsWith('.bin'))).toEqual([]);
    if (options.beforeDownload) {
      // Refused before the transfer: not one byte fetched, nothing partial left.
      expect(daemon.lines.filter((l) => /download/.test(l.msg)).map((l) => l.msg)).toEqual([]);
      expect(downloaded).toEqual([]);
    }
    const device_ = await t.api('GET', `/devices/${device.prn}`);
    expect(device_.body.device.reported_release_prn).toBeNull();
    return reports[1].reason!;
  } finally {
    await daemon.stop();
  }
}

describe('the daemon refuses', () => {
  it('a binary whose stored bytes were altered', async () => {
    const reason = await refusedWith('altered', [trusted], {
      tamper: (file) => {
        const bytes = fs.readFileSync(file);
        bytes[1000] ^= 0xff;
        fs.writeFileSync(file, bytes);
      },
    });
    expect(reason).toMatch(/sha256 mismatch/);
  });

  it('a binary signed only by a key it does not trust', async () => {
    expect(await refusedWith('untrusted', [untrusted])).toMatch(/no signature by a trusted key/);
  });

  it('a binary with fewer trusted signatures than the threshold', async () => {
    expect(await refusedWith('threshold', [trusted, untrusted], { trust: [trusted, second], threshold: 2 })).toMatch(/signed by 1 trusted key, 2 required/);
  });

  it('a binary whose stored size differs from the declared size', async () => {
    expect(await refusedWith('shorter', [trusted], { whole: (bytes) => bytes.subarray(0, 200 * 1024) })).toMatch(/size mismatch: expected 262144 bytes, got 204800/);
    expect(await refusedWith('longer', [trusted], { whole: (bytes) => Buffer.concat([bytes, Buffer.alloc(10)]) })).toMatch(/larger than its declared size 262144/);
  });

  it('before downloading, a binary for an installer this device is not configured for (avocado-ab without a boot environment)', async () => {
    const named = await refusedWith('ab-named', [trusted], { metadata: () => ({ canopy: { installer: 'avocado-ab' } }), beforeDownload: true });
    expect(named).toMatch(/^ab-named-\d+: installer avocado-ab is not available on this device: avocado-ab needs uboot_environment or grub_environment in the configuration$/);
    // No canopy metadata at all means avocado-ab (the schema's default): refused the same way.
    const unnamed = await refusedWith('ab-default', [trusted], { metadata: () => ({}), beforeDownload: true });
    expect(unnamed).toMatch(/installer avocado-ab is not available on this device: avocado-ab needs uboot_environment/);
  });

  it('before downloading, a binary whose metadata names an installer the daemon does not have', async () => {
    const reason = await refusedWith('unknown-installer', [trusted], { metadata: () => ({ canopy: { installer: 'opkg' } }), beforeDownload: true });
    expect(reason).toContain(`custom_metadata.canopy.installer: must be one of ${INSTALLER_NAMES.join(', ')}`);
  });
});
