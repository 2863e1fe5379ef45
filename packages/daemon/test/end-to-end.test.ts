/**
 * canopy-daemon end to end, as a user would run it: the canopy CLI (its own process) uploads a
 * binary whose metadata names the `file` installer, signs it, bundles and releases it; a
 * canopy-daemon process started from its configuration file downloads it over mutual TLS,
 * verifies it, installs it and reports; the server shows the device's reported release and the
 * events, and a webhook receives device.release_changed.
 */
import { execFile } from 'node:child_process';
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../server/test/support/server';
import { startReceiver, type Receiver } from '../../server/test/support/webhook-receiver';
import { bundleDaemon, createFleet, DAEMON_BUNDLE, DaemonProcess, enrollDevice, eventually, removeTemporaryDirs, temporaryDir, updateReports, writeConfig, type Fleet } from './support/harness';

const run = promisify(execFile);
const CANOPY = path.resolve(__dirname, '../../cli/bin/canopy.mjs');

let t: TestServer;
let receiver: Receiver;
let fleet: Fleet;
beforeAll(async () => {
  bundleDaemon();
  receiver = await startReceiver();
  t = await startTestServer({ webhookAllowPrivate: true, webhookCaFiles: [receiver.caFile] });
  fleet = await createFleet(t.api, 'e2e');
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  removeTemporaryDirs();
});

it('a release made with the CLI is downloaded, verified, installed and reported by a daemon process', async () => {
  const work = temporaryDir();
  const env = { ...process.env, CANOPY_BASE_URL: t.url, CANOPY_API_KEY: t.apiKey, CANOPY_CONFIG_DIR: path.join(work, 'cli') };
  const canopy = async (...args: string[]) => JSON.parse((await run(process.execPath, [CANOPY, ...args], { env })).stdout);

  const webhook = await t.api('POST', '/webhooks', { url: receiver.url, enabled_events: ['device.release_changed'] });
  expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);

  // The release, made as an operator would.
  await canopy('signing-keys', 'create', '--generate', 'release');
  const publicKeyPath = path.join(work, 'release.pub.pem');
  fs.writeFileSync(publicKeyPath, createPublicKey(createPrivateKey(fs.readFileSync(path.join(work, 'cli', 'signing-keys', 'release.pem')))).export({ format: 'pem', type: 'spki' }));
  const artifact = (await canopy('artifacts', 'create', '--name', 'detector-model')).artifact;
  const version = (await canopy('artifact-versions', 'create', '--artifact-prn', artifact.prn, '--version', '2.0.0')).artifact_version;
  const content = randomBytes(3 * 1024 * 1024 + 17);
  const contentPath = path.join(work, 'detector.onnx');
  fs.writeFileSync(contentPath, content);
  const device = await enrollDevice(t, fleet, fleet.cohortPrn, 'e2e-gateway');
  const target = path.join(device.dir, 'models', 'detector.onnx');
  const metadata = JSON.stringify({ canopy: { installer: 'file', file: { path: target, mode: '0640' }, reboot_required: false }, build: { pipeline: 'ci-1843' } });
  const created = await canopy(
    'binaries', 'create', '--content-path', contentPath, '--artifact-version-prn', version.prn, '--target', 'x86_64-linux',
    '--custom-metadata', metadata, '--signing-key-pair', 'release', '--cohort-prn', fleet.cohortPrn,
  );
  expect(created.binary.state).toBe('signed');
  const releasePrn: string = created.release.prn;
  const bundlePrn: string = created.bundle.prn;

  // The daemon, from its configuration file, checked first.
  const configFile = writeConfig(t, device, [publicKeyPath]);
  const checked = await run(process.execPath, [DAEMON_BUNDLE, 'check-config', '--config', configFile]);
  expect(checked.stdout).toContain('valid (1 trusted signing key, threshold 1)');
  const daemon = DaemonProcess.start(configFile);
  try {
    await daemon.waitFor((l) => l.msg === 'update state' && l.event === 'all_installed', 'the install');
    expect(fs.readFileSync(target).equals(content)).toBe(true);
    expect(fs.statSync(target).mode & 0o777).toBe(0o640);
    // Nothing left behind: no temp file beside the target, no download.
    expect(fs.readdirSync(path.dirname(target))).toEqual(['detector.onnx']);
    expect(fs.readdirSync(path.join(device.dir, 'downloads'))).toEqual([]);

    // Reports, in order; then the next check carries the new release in its headers.
    const reports = await eventually(async () => {
      const list = await updateReports(t.api, device.prn);
      return list.at(-1)?.status === 'installed' ? list : null;
    }, 'the installed report');
    expect(reports.map((r) => r.status)).toEqual(['downloading', 'installing', 'installed']);
    expect(reports.every((r) => r.release === releasePrn)).toBe(true);
    const shown = await eventually(async () => {
      const res = await t.api('GET', `/devices/${device.prn}`);
      return res.body.device.reported_release_prn === releasePrn ? res.body.device : null;
    }, 'the reported release', 30_000);
    expect(shown.reported_bundle_prn).toBe(bundlePrn);
    const changed = await t.api('GET', `/events?type=device&subtype=release_changed&resource_prn=${encodeURIComponent(device.prn)}`);
    expect(changed.body.events[0].data.data).toMatchObject({ to_release: { prn: releasePrn, known: true }, to_bundle: { prn: bundlePrn, known: true } });
    const delivered = await eventually(async () => receiver.requests.find((r) => r.body?.data?.type === 'release_changed' && r.body.data.data.device?.prn === device.prn), 'the webhook delivery', 30_000);
    expect(delivered.body.data.data.to_release).toMatchObject({ prn: releasePrn });
    expect(delivered.headers['canopy-signature']).toBeTruthy();

    // status, from the state file.
    const status = JSON.parse((await run(process.execPath, [DAEMON_BUNDLE, 'status', '--config', configFile, '--json'])).stdout);
    expect(status).toMatchObject({ release_prn: releasePrn, bundle_prn: bundlePrn, install_in_progress: null, pending_reports: 0 });
    expect(status.last_check_at).toMatch(/^\d{4}-/);
  } finally {
    await daemon.stop();
  }
  expect((await daemon.exited).code).toBe(0);
  // One line per decision, JSON, never the private key.
  const log = daemon.lines.map((l) => JSON.stringify(l)).join('\n');
  expect(daemon.lines.every((l) => l.level !== 'unparsed')).toBe(true);
  expect(log).not.toContain('PRIVATE KEY');
  expect(log).not.toContain(fs.readFileSync(device.keyPath, 'utf8').split('\n')[1]);
});
