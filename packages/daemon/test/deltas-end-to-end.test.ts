/**
 * Delta updates end to end with a canopy-daemon process (decision 009): release 1 comes whole;
 * release 2 of the same artifact comes as the delta the server's job made from release 1's
 * binary, rebuilt on the device from the installed file, verified (hash and signature) and
 * installed byte for byte; a corrupted stored delta makes the daemon fall back to the full binary.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { binaryDeltas } from '../../server/src/deltas/schema';
import type { Api } from '../../server/test/support/server';
import { fencedBlocks } from '../../../site/test/helpers/shellBlocks';
import { blobStoreFiles, createCohort, DAEMON_BUNDLE, DAEMON_ROOT, DaemonProcess, enrollDevice, eventually, signHash, updateReports, useDaemonTestServer, writeConfig, type Signer } from './support/harness';

const run = promisify(execFile);
const ctx = useDaemonTestServer('deltas');
const MiB = 1024 * 1024;

async function ok(api: Api, method: string, url: string, body?: unknown, status = 201) {
  const res = await api(method, url, body);
  if (res.status !== status) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A file system-like image: random and repetitive 4 KiB blocks, so a few changed blocks make a small delta. */
function image(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  for (let at = 0; at < bytes; at += 4096) {
    if ((at / 4096) % 2 === 0) randomBytes(4096).copy(out, at);
    else out.fill(at % 251, at, at + 4096);
  }
  return out;
}

/** Uploads `bytes` as version `version` of `artifactPrn`, signed, bundled and released to `cohortPrn`. */
async function publish(artifactPrn: string, version: string, bytes: Buffer, metadata: object, signer: Signer, cohortPrn: string) {
  const api = ctx.t.api;
  const hash = createHash('sha256').update(bytes).digest('hex');
  const av = (await ok(api, 'POST', '/artifact_versions', { artifact_prn: artifactPrn, version })).artifact_version;
  const binary = (await ok(api, 'POST', '/binaries', { artifact_version_prn: av.prn, hash, size: bytes.length, target: 'x86_64-linux', custom_metadata: metadata })).binary;
  const declared = await ok(api, 'PUT', `/binaries/${binary.prn}/parts/1`, { expected_binary_size: bytes.length, hash, size: bytes.length });
  expect((await fetch(declared.binary_part.presigned_upload_url, { method: 'PUT', body: new Uint8Array(bytes) })).status).toBe(200);
  await ok(api, 'PATCH', `/binaries/${binary.prn}`, { state: 'hashable' }, 200);
  await ok(api, 'PATCH', `/binaries/${binary.prn}`, { state: 'hashing' }, 200);
  await eventually(async () => (await ok(api, 'GET', `/binaries/${binary.prn}`, undefined, 200)).binary.state === 'signable', 'the binary hashed');
  await ok(api, 'POST', '/binary_signatures', { binary_prn: binary.prn, signing_key_prn: signer.prn, signature: signHash(signer.privateKey, hash) });
  const bundle = (await ok(api, 'POST', '/bundles', { name: `deltas-${version}`, artifact_version_prns: [av.prn] })).bundle;
  return { binaryPrn: binary.prn as string, bundlePrn: bundle.prn as string, hash };
}

async function release(bundlePrn: string, cohortPrn: string, version: string) {
  return (await ok(ctx.t.api, 'POST', '/releases', { bundle_prn: bundlePrn, cohort_prn: cohortPrn, name: `deltas ${version}`, version, required: false, schedule_date: null })).release.prn as string;
}

async function readyDelta(binaryPrn: string) {
  return eventually(async () => {
    const deltas = (await ok(ctx.t.api, 'GET', `/binaries/${binaryPrn}/deltas`, undefined, 200)).binary_deltas;
    return deltas.find((d: { state: string }) => d.state === 'ready');
  }, 'a ready delta', 60_000);
}

async function status(configFile: string) {
  return JSON.parse((await run(process.execPath, [DAEMON_BUNDLE, 'status', '--config', configFile, '--json'])).stdout);
}

/** The docs page's `canopy-daemon status` example (tested-by this file) and its sample output. */
const DOCS_PAGE = path.join(DAEMON_ROOT, '../../site/docs/canopy-core/tools/canopy-daemon/delta-updates.md');
function docsStatusExample(): { command: string; output: string } {
  const blocks = fencedBlocks('delta-updates.md', fs.readFileSync(DOCS_PAGE, 'utf8'));
  const command = blocks.find((b) => b.lang === 'sh' && b.meta.includes('deltas-end-to-end.test.ts'))!.code.trim();
  const output = blocks.find((b) => b.lang === 'text' && b.code.includes('downloaded:'))!.code;
  return { command, output };
}
const DOWNLOADED = /^downloaded: +(\d+) bytes for (\d+) bytes of binaries \(saved (\d+); (\d+) by delta, (\d+) fell back\)$/m;

const v1 = image(4 * MiB + 123);
const v2 = Buffer.from(v1);
for (const block of [3, 100, 517, 900]) randomBytes(4096).copy(v2, block * 4096);
let binaries: { one: Awaited<ReturnType<typeof publish>>; two: Awaited<ReturnType<typeof publish>> };

it('installs release 1 whole and release 2 from its delta, verified, byte for byte', async () => {
  const { t, fleet, signer } = ctx;
  const cohortPrn = await createCohort(t.api, fleet, 'deltas');
  const device = await enrollDevice(t, fleet, cohortPrn, 'delta-gateway');
  const target = path.join(device.dir, 'rootfs.img');
  const metadata = { canopy: { installer: 'file', file: { path: target, mode: '0644' }, reboot_required: false } };
  const artifact = (await ok(t.api, 'POST', '/artifacts', { name: `rootfs-${Date.now()}` })).artifact;
  binaries = { one: await publish(artifact.prn, '1.0.0', v1, metadata, signer, cohortPrn), two: await publish(artifact.prn, '2.0.0', v2, metadata, signer, cohortPrn) };
  await release(binaries.one.bundlePrn, cohortPrn, '1.0.0');
  const configFile = writeConfig(t, device, [signer.publicPath]);

  let daemon = DaemonProcess.start(configFile);
  try {
    await daemon.waitFor((l) => l.msg === 'update state' && l.event === 'all_installed', 'release 1 installed');
    expect(fs.readFileSync(target).equals(v1)).toBe(true);
    expect(daemon.lines.some((l) => l.msg === 'rebuilt from delta')).toBe(false);
  } finally {
    await daemon.stop();
  }

  // Release 2: the server's job makes the delta from release 1's binary before the daemon asks.
  const release2 = await release(binaries.two.bundlePrn, cohortPrn, '2.0.0');
  const delta = await readyDelta(binaries.two.binaryPrn);
  expect(delta.base_binary_prn).toBe(binaries.one.binaryPrn);
  expect(delta.size).toBeLessThan(v2.length / 10);

  daemon = DaemonProcess.start(configFile);
  try {
    await daemon.waitFor((l) => l.msg === 'update state' && l.event === 'all_installed', 'release 2 installed');
    const rebuilt = daemon.lines.find((l) => l.msg === 'rebuilt from delta')!;
    expect(rebuilt).toMatchObject({ binary_prn: binaries.two.binaryPrn, delta_bytes: delta.size, size: v2.length, base: 'installed' });
    // The rebuilt binary went through the same verification as a download: hash and signature.
    expect(daemon.lines.find((l) => l.msg === 'verified')).toMatchObject({ binary_prn: binaries.two.binaryPrn, trusted_keys: 1 });
    expect(daemon.lines.some((l) => l.msg === 'download resuming' || l.msg === 'delta not used; downloading the full binary')).toBe(false);
    expect(fs.readFileSync(target).equals(v2)).toBe(true);
  } finally {
    await daemon.stop();
  }
  const reports = await eventually(async () => {
    const list = await updateReports(t.api, device.prn);
    return list.at(-1)?.status === 'installed' && list.at(-1)?.release === release2 ? list : null;
  }, 'the installed report of release 2').catch(() => updateReports(t.api, device.prn));
  expect(reports.at(-1)?.status).toBe('installed');

  // Bytes on the wire: release 1 whole, release 2 only its delta.
  const view = await status(configFile);
  expect(view.transfers).toMatchObject({ full_bytes: v1.length + v2.length, wire_bytes: v1.length + delta.size, deltas_used: 1, delta_fallbacks: 0, saved_bytes: v2.length - delta.size });

  // The docs' example, run as written but for the daemon's path and this device's configuration.
  const example = docsStatusExample();
  const text = (await run('bash', ['-c', example.command.replace(/^canopy-daemon /, `"${process.execPath}" "${DAEMON_BUNDLE}" `).replace('/etc/canopy/canopy-daemon.json', configFile)])).stdout;
  expect(DOWNLOADED.exec(text)?.slice(1).map(Number)).toEqual([v1.length + delta.size, v1.length + v2.length, v2.length - delta.size, 1, 0]);
  expect(example.output).toMatch(DOWNLOADED);
}, 180_000);

it('falls back to the full binary when the stored delta is corrupt, and says why', async () => {
  const { t, fleet, signer } = ctx;
  const [row] = await t.server.platform.db.select().from(binaryDeltas).where(eq(binaryDeltas.state, 'ready'));
  expect(row?.blobKey).toBeTruthy();
  // Flip a byte of every stored copy of the delta (found by its bytes in the filesystem store).
  const chunks: Buffer[] = [];
  for await (const chunk of await t.server.platform.blobs.get(row!.blobKey!)) chunks.push(chunk as Buffer);
  const stored = Buffer.concat(chunks);
  let corrupted = 0;
  for (const file of blobStoreFiles(t)) {
    if (fs.statSync(file).size !== stored.length || !fs.readFileSync(file).equals(stored)) continue;
    const bytes = fs.readFileSync(file);
    bytes[bytes.length >> 1]! ^= 0xff;
    fs.writeFileSync(file, bytes);
    corrupted++;
  }
  expect(corrupted).toBeGreaterThan(0);

  const cohortPrn = await createCohort(t.api, fleet, 'deltas-corrupt');
  const device = await enrollDevice(t, fleet, cohortPrn, 'delta-corrupt');
  // Release 1 installs (whole) to the file both releases name; release 2 is offered with the delta.
  await release(binaries.one.bundlePrn, cohortPrn, '1.0.0');
  const configFile = writeConfig(t, device, [signer.publicPath]);
  const daemon = DaemonProcess.start(configFile);
  try {
    await daemon.waitFor((l) => l.msg === 'update state' && l.event === 'all_installed', 'release 1 installed');
    await release(binaries.two.bundlePrn, cohortPrn, '2.0.0');
    const fallback = await daemon.waitFor((l) => l.msg === 'delta not used; downloading the full binary', 'the fallback', 90_000);
    expect(fallback).toMatchObject({ binary_prn: binaries.two.binaryPrn, reason: 'corrupt_delta' });
    await daemon.waitFor((l) => l.msg === 'update state' && l.event === 'all_installed' && daemon.lines.indexOf(l) > daemon.lines.indexOf(fallback), 'release 2 installed');
    expect(daemon.lines.find((l) => l.msg === 'verified' && l.binary_prn === binaries.two.binaryPrn)).toMatchObject({ trusted_keys: 1 });
  } finally {
    await daemon.stop();
  }
  const installed = JSON.parse(fs.readFileSync(path.join(device.dir, 'state', 'state.json'), 'utf8'));
  expect(installed.transfers).toMatchObject({ deltas_used: 0, delta_fallbacks: 1, last_fallback: { binary_prn: binaries.two.binaryPrn } });
  expect(installed.transfers.last_fallback.reason).toMatch(/^corrupt_delta: sha256 mismatch/);
}, 180_000);
