/**
 * What the daemon's process tests share: the real server of the server workspace's harness,
 * devices enrolled through the admin API with their own certificate files, releases published
 * through the admin API (or the CLI), and canopy-daemon started as its own process from the
 * bundled file, with its JSON-lines log collected.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeLeafCertificate, makeRootCa, type TestCertificate } from '../../../server/test/support/certificates';
import { createDevice, registerDeviceCertificate, registeredCa } from '../../../server/test/support/device-fleet';
import { startTestServer, type Api, type TestServer } from '../../../server/test/support/server';
import { afterAll, beforeAll } from 'vitest';

export const DAEMON_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DAEMON_BUNDLE = path.join(DAEMON_ROOT, 'dist/canopy-daemon.mjs');

/** Builds dist/canopy-daemon.mjs: the tests run the file a device would. */
export function bundleDaemon(): void {
  execFileSync(process.execPath, [path.join(DAEMON_ROOT, 'scripts/bundle.mjs')], { stdio: 'inherit' });
}

const temporaryDirs: string[] = [];
export function temporaryDir(prefix = 'canopy-daemon-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temporaryDirs.push(dir);
  return dir;
}
export function removeTemporaryDirs(): void {
  for (const dir of temporaryDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

async function ok(api: Api, method: string, url: string, body?: unknown, status = 201) {
  const res = await api(method, url, body);
  if (res.status !== status) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A signing key registered with the server, its private half kept here to sign with. */
export interface Signer {
  prn: string;
  privateKey: KeyObject;
  /** A PEM file of the public key, for the daemon's trusted_signing_keys. */
  publicPath: string;
}

export async function createSigner(api: Api, dir: string, name: string): Promise<Signer> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const created = await ok(api, 'POST', '/signing_keys', { name: `${name}-${path.basename(dir)}`, value: raw.toString('base64') });
  const publicPath = path.join(dir, `${name}.pub.pem`);
  fs.writeFileSync(publicPath, publicKey.export({ format: 'pem', type: 'spki' }));
  return { prn: created.signing_key.prn, privateKey, publicPath };
}

export const signHash = (key: KeyObject, hashHex: string) => sign(null, Buffer.from(hashHex, 'ascii'), key).toString('hex');

/** A product, a cohort, and a CA registered with proof of possession, for one test file. */
export interface Fleet {
  productPrn: string;
  cohortPrn: string;
  ca: TestCertificate;
}

export async function createFleet(api: Api, name: string): Promise<Fleet> {
  const ca = await makeRootCa();
  await registeredCa(api, ca);
  const product = (await ok(api, 'POST', '/products', { name: `${name}-${Date.now()}` })).product;
  const cohort = (await ok(api, 'POST', '/cohorts', { name: `${name}-cohort`, product_prn: product.prn })).cohort;
  return { productPrn: product.prn, cohortPrn: cohort.prn, ca };
}

export async function createCohort(api: Api, fleet: Fleet, name: string): Promise<string> {
  return (await ok(api, 'POST', '/cohorts', { name: `${name}-${Date.now()}`, product_prn: fleet.productPrn })).cohort.prn;
}

export interface DeviceFiles {
  prn: string;
  identifier: string;
  dir: string;
  certPath: string;
  keyPath: string;
  caPath: string;
}

/** A device of the cohort whose certificate, key and the server's CA are files in its own dir. */
export async function enrollDevice(t: TestServer, fleet: Fleet, cohortPrn: string, identifier: string): Promise<DeviceFiles> {
  const device = await createDevice(t.api, fleet.productPrn, identifier, { cohort_prn: cohortPrn });
  const certificate = await makeLeafCertificate(fleet.ca, identifier);
  await registerDeviceCertificate(t.api, device.prn, certificate);
  const dir = temporaryDir(`canopy-device-${identifier}-`);
  const files = { certPath: path.join(dir, 'device.pem'), keyPath: path.join(dir, 'device-key.pem'), caPath: path.join(dir, 'server-ca.pem') };
  fs.writeFileSync(files.certPath, certificate.certPem);
  fs.writeFileSync(files.keyPath, certificate.keyPem, { mode: 0o600 });
  fs.writeFileSync(files.caPath, t.deviceServerCaPem);
  return { prn: device.prn, identifier, dir, ...files };
}

/** A configuration file for `device` (tunnels off, fast polls); `extra` overrides any key. */
export function writeConfig(t: TestServer, device: DeviceFiles, trusted: string[], extra: Record<string, unknown> = {}): string {
  const config = {
    device_api: { url: t.deviceUrl, certificate_path: device.certPath, private_key_path: device.keyPath, server_ca_path: device.caPath },
    update_poll_interval: 10,
    update_jitter: 0,
    trusted_signing_keys: trusted,
    download_dir: path.join(device.dir, 'downloads'),
    state_dir: path.join(device.dir, 'state'),
    reboot_command: ['true'],
    remote_access_tunnels: { enabled: false },
    log_level: 'debug',
    ...extra,
  };
  const file = path.join(device.dir, 'canopy-daemon.json');
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

export interface Release {
  releasePrn: string;
  bundlePrn: string;
  binaryPrn: string;
  hash: string;
}

/**
 * Uploads `bytes` as a binary with `customMetadata`, signs it with each signer, bundles it and
 * releases it to the cohort, through the admin API. `uploadOrigin` replaces the presigned upload
 * URLs' origin (a server whose public URL is an address only its devices reach, as in the VM test).
 */
export async function publishRelease(api: Api, cohortPrn: string, bytes: Buffer, customMetadata: object, signers: Signer[], name: string, uploadOrigin?: string): Promise<Release> {
  const { createHash } = await import('node:crypto');
  const hash = createHash('sha256').update(bytes).digest('hex');
  const artifact = (await ok(api, 'POST', '/artifacts', { name: `${name}-${Date.now()}` })).artifact;
  const version = (await ok(api, 'POST', '/artifact_versions', { artifact_prn: artifact.prn, version: '1.0.0' })).artifact_version;
  const binary = (await ok(api, 'POST', '/binaries', { artifact_version_prn: version.prn, hash, size: bytes.length, target: 'x86_64-linux', custom_metadata: customMetadata })).binary;
  const PART = 8 * 1024 * 1024;
  for (let offset = 0, index = 1; offset < bytes.length; offset += PART, index++) {
    const part = bytes.subarray(offset, offset + PART);
    const declared = await ok(api, 'PUT', `/binaries/${binary.prn}/parts/${index}`, { expected_binary_size: bytes.length, hash: createHash('sha256').update(part).digest('hex'), size: part.length });
    const uploadUrl = new URL(declared.binary_part.presigned_upload_url);
    const target = uploadOrigin ? new URL(`${uploadUrl.pathname}${uploadUrl.search}`, uploadOrigin) : uploadUrl;
    // A part PUT is idempotent: one cut off on a kept-alive connection the server had just
    // closed (seen under CI's load) is sent once more, as an uploader would.
    const put = await fetch(target, { method: 'PUT', body: new Uint8Array(part) }).catch(() => fetch(target, { method: 'PUT', body: new Uint8Array(part) }));
    if (put.status !== 200) throw new Error(`part upload answered ${put.status}`);
  }
  await ok(api, 'PATCH', `/binaries/${binary.prn}`, { state: 'hashable' }, 200);
  await ok(api, 'PATCH', `/binaries/${binary.prn}`, { state: 'hashing' }, 200);
  for (let i = 0; ; i++) {
    const state = (await ok(api, 'GET', `/binaries/${binary.prn}`, undefined, 200)).binary.state;
    if (state === 'signable') break;
    if (i > 300) throw new Error(`binary stuck in ${state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const signer of signers) await ok(api, 'POST', '/binary_signatures', { binary_prn: binary.prn, signing_key_prn: signer.prn, signature: signHash(signer.privateKey, hash) });
  const bundle = (await ok(api, 'POST', '/bundles', { name: `${name}-bundle`, artifact_version_prns: [version.prn] })).bundle;
  const release = (await ok(api, 'POST', '/releases', { bundle_prn: bundle.prn, cohort_prn: cohortPrn, name, required: false, schedule_date: null })).release;
  return { releasePrn: release.prn, bundlePrn: bundle.prn, binaryPrn: binary.prn, hash };
}

/** Every stored copy of a binary in the server's filesystem blob store (its parts and the whole, found by their bytes). */
export function storedBlobs(t: TestServer, bytes: Buffer): string[] {
  const root = path.join(t.config.dataDir, 'blobs');
  const found: string[] = [];
  const stack = [root];
  while (stack.length) {
    const dir = stack.pop()!;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) stack.push(file);
      else if (fs.statSync(file).size === bytes.length && fs.readFileSync(file).equals(bytes)) found.push(file);
    }
  }
  if (found.length === 0) throw new Error('stored blob not found');
  return found;
}

/**
 * Replaces every binary the filesystem store keeps as a concatenation of its parts (a
 * `<key>.concat` list) with a plain file of `bytes` at the key, which the store serves instead:
 * a stored object whose size is not the declared one.
 */
export function replaceWholeBlobs(t: TestServer, bytes: Buffer): number {
  let replaced = 0;
  for (const file of blobStoreFiles(t)) {
    if (!file.endsWith('.concat')) continue;
    fs.writeFileSync(file.slice(0, -'.concat'.length), bytes);
    replaced++;
  }
  return replaced;
}

/** Every file under the test server's filesystem blob store. */
export function blobStoreFiles(t: TestServer): string[] {
  const files: string[] = [];
  const stack = [path.join(t.config.dataDir, 'blobs')];
  while (stack.length) {
    const dir = stack.pop()!;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) stack.push(file);
      else files.push(file);
    }
  }
  return files;
}

export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** canopy-daemon as its own process, started from the bundled file. */
export class DaemonProcess {
  readonly lines: LogLine[] = [];
  stderr = '';
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[], env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [DAEMON_BUNDLE, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let buffered = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        try {
          this.lines.push(JSON.parse(line));
        } catch {
          this.lines.push({ level: 'unparsed', msg: line });
        }
      }
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  static start(configFile: string, env: Record<string, string> = {}): DaemonProcess {
    return new DaemonProcess(['--config', configFile], env);
  }

  async waitFor(predicate: (line: LogLine) => boolean, what: string, timeoutMs = 60_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`daemon never logged ${what}; log:\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }

  kill(): Promise<unknown> {
    this.child.kill('SIGKILL');
    return this.exited;
  }
}

/** Polls until `check` holds (or fails the test with `what`). */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The device's update_reported events, oldest first. */
export async function updateReports(api: Api, devicePrn: string): Promise<Array<{ status: string; reason: string | null; progress: number | null; release: string | null }>> {
  const res = await api('GET', `/events?type=device&subtype=update_reported&resource_prn=${encodeURIComponent(devicePrn)}&order=asc&limit=100`);
  return res.body.events.map((e: any) => e.data.data);
}

/** One test file's server, fleet and signer, made before its tests (with the daemon bundled) and closed after. */
export function useDaemonTestServer(name: string): { t: TestServer; fleet: Fleet; signer: Signer } {
  const context = {} as { t: TestServer; fleet: Fleet; signer: Signer };
  beforeAll(async () => {
    bundleDaemon();
    context.t = await startTestServer();
    context.fleet = await createFleet(context.t.api, name);
    context.signer = await createSigner(context.t.api, temporaryDir(), name);
  });
  afterAll(async () => {
    await context.t?.close();
    removeTemporaryDirs();
  });
  return context;
}
