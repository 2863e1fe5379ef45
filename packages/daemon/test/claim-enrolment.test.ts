/**
 * Provisioning with claim tokens, as a device does it: `canopy-daemon enrol` (its own process)
 * makes a key, claims with a token and writes its certificate; the daemon then runs with it and
 * installs a release of the token's cohort. The same identifier on a new key waits for an admin
 * (exit 75) and is enrolled after approval; an expired or used-up token is refused (exit 77).
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { shellBlocks } from '../../../site/test/helpers/shellBlocks';
import { DAEMON_BUNDLE, DAEMON_ROOT, DaemonProcess, eventually, publishRelease, temporaryDir, updateReports, useDaemonTestServer, type DeviceFiles } from './support/harness';

const INSTALL_PAGE = path.resolve(DAEMON_ROOT, '../../site/docs/canopy-core/tools/canopy-daemon/installation.md');

const context = useDaemonTestServer('claims');

/** A device directory with no key or certificate yet, and its configuration. */
function unenrolledDevice(identifier: string): { files: DeviceFiles; config: string } {
  const { t, signer } = context;
  const dir = temporaryDir(`canopy-claim-${identifier}-`);
  const files = { prn: '', identifier, dir, certPath: path.join(dir, 'device.pem'), keyPath: path.join(dir, 'device-key.pem'), caPath: path.join(dir, 'server-ca.pem') };
  fs.writeFileSync(files.caPath, t.deviceServerCaPem);
  const config = {
    device_api: { url: t.deviceUrl, certificate_path: files.certPath, private_key_path: files.keyPath, server_ca_path: files.caPath },
    update_poll_interval: 10,
    update_jitter: 0,
    trusted_signing_keys: [signer.publicPath],
    download_dir: path.join(dir, 'downloads'),
    state_dir: path.join(dir, 'state'),
    reboot_command: ['true'],
    remote_access_tunnels: { enabled: false },
    log_level: 'debug',
  };
  const file = path.join(dir, 'canopy-daemon.json');
  fs.writeFileSync(file, JSON.stringify(config));
  return { files, config: file };
}

async function enrol(config: string, identifier: string, token: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const daemon = new DaemonProcess(['enrol', '--config', config, '--identifier', identifier], { CANOPY_CLAIM_TOKEN: token });
  const { code } = await daemon.exited;
  return { code, stdout: daemon.lines.map((l) => l.msg).join('\n'), stderr: daemon.stderr };
}

/**
 * The installation page's enrol command, run as written but for the device's paths, the
 * identifier, and `canopy-daemon` (the bundled file here, a command on the device).
 */
function enrolAsDocumented(config: string, identifier: string, secret: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const block = shellBlocks('installation.md', fs.readFileSync(INSTALL_PAGE, 'utf8')).find((b) => b.title === 'Enrol with a claim token');
  expect(block, 'the installation page shows the enrol command').toBeDefined();
  const script = block!.code
    .replaceAll('/etc/canopy/canopy-daemon.json', config)
    .replaceAll('sensor-0001', identifier)
    .replace(/(^|\s)canopy-daemon /, `$1${process.execPath} ${DAEMON_BUNDLE} `);
  // Not spawnSync: the server answering the claim runs in this process.
  return new Promise((resolve) => {
    const child = execFile('bash', ['--norc', '--noprofile', '-euo', 'pipefail', '-c', script], { env: { PATH: process.env.PATH, CLAIM_SECRET: secret } }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

async function issueToken(body: Record<string, unknown>): Promise<{ prn: string; secret: string }> {
  const created = await context.t.api('POST', '/claim_tokens', { product_prn: context.fleet.productPrn, max_uses: 5, expires_at: new Date(Date.now() + 86_400_000).toISOString(), ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.claim_token;
}

it('enrols with a token into its cohort and tags, then installs the cohort release', async () => {
  const { t, fleet, signer } = context;
  const token = await issueToken({ cohort_prn: fleet.cohortPrn, tags: ['line-3'] });
  const { files, config } = unenrolledDevice('claimed-sensor');

  const enrolled = await enrolAsDocumented(config, 'claimed-sensor', token.secret);
  expect(enrolled.code, enrolled.stderr).toBe(0);
  expect(enrolled.stdout).toContain('enrolled as prn:');
  expect(fs.statSync(files.keyPath).mode & 0o777).toBe(0o600);
  expect(new X509Certificate(fs.readFileSync(files.certPath)).subject).toContain('CN=claimed-sensor');
  const device = (await t.api('GET', `/devices?search=${encodeURIComponent("identifier:'claimed-sensor'")}`)).body.devices[0];
  expect(device).toMatchObject({ cohort_prn: fleet.cohortPrn, tags: ['line-3'] });
  expect((await t.api('GET', `/claim_tokens/${token.prn}`)).body.claim_token.uses).toBe(1);

  const target = path.join(files.dir, 'installed.bin');
  const bytes = Buffer.from('the first release a claimed device installs\n');
  const release = await publishRelease(t.api, fleet.cohortPrn, bytes, { canopy: { installer: 'file', file: { path: target }, reboot_required: false } }, [signer], 'claimed');
  const daemon = DaemonProcess.start(config);
  try {
    await eventually(async () => (await updateReports(t.api, device.prn)).some((r) => r.status === 'installed' && r.release === release.releasePrn), 'the claimed device to install the release', 90_000);
    expect(fs.readFileSync(target)).toEqual(bytes);
  } finally {
    await daemon.stop();
  }
});

it('a known identifier on a new key waits for approval (75), then enrols with the same key', async () => {
  const { t } = context;
  const token = await issueToken({});
  const first = unenrolledDevice('rekeyed-sensor');
  expect((await enrol(first.config, 'rekeyed-sensor', token.secret)).code).toBe(0);

  const second = unenrolledDevice('rekeyed-sensor');
  const waiting = await enrol(second.config, 'rekeyed-sensor', token.secret);
  expect(waiting.code).toBe(75);
  expect(waiting.stderr).toMatch(/reclaim prn:\S+ waits for an admin/);
  expect(fs.existsSync(second.files.certPath)).toBe(false);
  const key = fs.readFileSync(second.files.keyPath);

  const reclaim = (await t.api('GET', `/device_reclaims?search=${encodeURIComponent("state:'pending'")}`)).body.device_reclaims[0];
  expect((await t.api('POST', `/device_reclaims/${reclaim.prn}/approve`, {})).status).toBe(200);
  const approved = await enrol(second.config, 'rekeyed-sensor', token.secret);
  expect(approved.code, approved.stderr).toBe(0);
  // The key made for the claim is the one the certificate is for, kept across the two runs.
  expect(fs.readFileSync(second.files.keyPath)).toEqual(key);
  const certificate = new X509Certificate(fs.readFileSync(second.files.certPath));
  expect(certificate.checkPrivateKey((await import('node:crypto')).createPrivateKey(key))).toBe(true);
});

it('refuses an expired or used-up token with 77 and the reason, writing no certificate', async () => {
  const usedUp = await issueToken({ max_uses: 1 });
  expect((await enrol(unenrolledDevice('first-of-one').config, 'first-of-one', usedUp.secret)).code).toBe(0);
  const late = unenrolledDevice('second-of-one');
  const refused = await enrol(late.config, 'second-of-one', usedUp.secret);
  expect(refused.code).toBe(77);
  expect(refused.stderr).toContain('claim_token_used_up');
  expect(fs.existsSync(late.files.certPath)).toBe(false);

  const expiring = await issueToken({ expires_at: new Date(Date.now() + 1500).toISOString() });
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const expired = await enrol(unenrolledDevice('too-late').config, 'too-late', expiring.secret);
  expect(expired.code).toBe(77);
  expect(expired.stderr).toContain('claim_token_expired');
});

it('says what is missing without a token', async () => {
  const { config } = unenrolledDevice('no-token');
  const daemon = new DaemonProcess(['enrol', '--config', config]);
  expect((await daemon.exited).code).toBe(64);
  expect(daemon.stderr).toContain('CANOPY_CLAIM_TOKEN');
});
