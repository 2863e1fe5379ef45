/**
 * The TUF attack suite: a real server and real daemon processes configured with `tuf`, the test
 * acting as an attacker who holds the server's database and its online (snapshot, timestamp)
 * keys, but not the organization's offline root, targets and release keys. Every attack is
 * refused by the daemon with a `tuf_<check>` reason and nothing is installed; the good path
 * installs.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Key, Metadata, MetaFile, Timestamp } from '@tufjs/models';
import { buildRoot, buildTopTargets, generateTufKey, signWith, tufKeyFromPrivatePem, tufSigner, withReleaseTargets, type TufKeyPair } from '@canopy/sdk/tuf';
import { startTestServer, type TestServer } from '../../server/test/support/server';
import { publishOnlineRoles } from '../../server/src/tuf/service';
import { bundleDaemon, createCohort, createSigner, type Signer, createFleet, DaemonProcess, enrollDevice, eventually, publishRelease, removeTemporaryDirs, temporaryDir, updateReports, writeConfig, type Fleet, type Release } from './support/harness';

let t: TestServer;
let fleet: Fleet;
let keysDir: string;
let signer: Signer;
const rootKey = generateTufKey();
const targetsKey = generateTufKey();
let releaseKey = generateTufKey();
let online: { snapshot: Key; timestamp: Key };
let rootFile: string;
let topVersion = 1;

const sql = async (text: string) => ((await t.server.platform.db.execute(text)) as unknown as { rows: Record<string, any>[] }).rows;
const ok = async (method: string, url: string, body?: unknown) => {
  const res = await t.api(method, url, body);
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

function rootWith(version: number, keys: { snapshot: Key; timestamp: Key }) {
  return buildRoot({ version, root: { keys: [rootKey.key], threshold: 1 }, targets: { keys: [targetsKey.key], threshold: 1 }, snapshot: { keys: [keys.snapshot], threshold: 1 }, timestamp: { keys: [keys.timestamp], threshold: 1 } });
}

async function createdOnlineKeys() {
  const made = (await ok('POST', '/tuf/online_keys')).data;
  return { snapshot: Key.fromJSON(made.snapshot.keyid, made.snapshot.key), timestamp: Key.fromJSON(made.timestamp.keyid, made.timestamp.key) };
}

/** The attacker's copy of the server's online keys (it has the database and the secret key). */
async function stolenOnlineKeys(): Promise<Record<'snapshot' | 'timestamp', TufKeyPair>> {
  const rows = await sql(`select role, sealed_private_key from tuf_online_keys where organization_id = '${t.organizationId}' order by inserted_at desc`);
  const pick = (role: string) => tufKeyFromPrivatePem(t.server.platform.secrets.open(rows.find((r) => r.role === role)!.sealed_private_key));
  return { snapshot: pick('snapshot'), timestamp: pick('timestamp') };
}

async function delegateTo(key: TufKeyPair) {
  topVersion += 1;
  await ok('PUT', '/tuf/metadata/targets', { metadata: signWith(buildTopTargets(topVersion, [{ product: 'gateway', keys: [key.key], threshold: 1 }]), [targetsKey]).toJSON() });
}

async function currentGateway() {
  const res = await t.api('GET', '/tuf/metadata/gateway.json');
  return res.status === 200 ? Metadata.fromJSON('targets' as never, res.body) : null;
}

/** The organization's release process: the release's binary listed in gateway's targets, signed offline. */
async function signRelease(release: Release, bytes: Buffer) {
  const next = withReleaseTargets((await currentGateway()) as never, 'gateway', release.releasePrn, [{ name: release.binaryPrn, sha256: release.hash, length: bytes.length }]);
  await ok('PUT', '/tuf/metadata/gateway', { metadata: signWith(next, [releaseKey]).toJSON() });
}

beforeAll(async () => {
  bundleDaemon();
  t = await startTestServer();
  fleet = await createFleet(t.api, 'tuf');
  keysDir = temporaryDir();
  // trusted_signing_keys stays required; with `tuf` the TUF check replaces the Ed25519 one.
  signer = await createSigner(t.api, keysDir, 'plain');
  online = await createdOnlineKeys();
  const root = signWith(rootWith(1, online), [rootKey]);
  await ok('PUT', '/tuf/root', { root: root.toJSON() });
  rootFile = path.join(keysDir, 'root.json');
  fs.writeFileSync(rootFile, JSON.stringify(root.toJSON()));
  await ok('PUT', '/tuf/metadata/targets', { metadata: signWith(buildTopTargets(1, [{ product: 'gateway', keys: [releaseKey.key], threshold: 1 }]), [targetsKey]).toJSON() });
}, 120_000);
afterAll(async () => {
  await t?.close();
  removeTemporaryDirs();
});

interface Scenario {
  device: Awaited<ReturnType<typeof enrollDevice>>;
  cohortPrn: string;
  target: string;
}

async function scenario(name: string): Promise<Scenario> {
  const cohortPrn = await createCohort(t.api, fleet, name);
  const device = await enrollDevice(t, fleet, cohortPrn, `tuf-${name}`);
  return { device, cohortPrn, target: path.join(device.dir, 'installed', 'app.bin') };
}

async function release(s: Scenario, name: string, { signed = true } = {}) {
  const bytes = randomBytes(64 * 1024);
  const published = await publishRelease(t.api, s.cohortPrn, bytes, { canopy: { installer: 'file', file: { path: s.target }, reboot_required: false } }, [signer], name);
  if (signed) await signRelease(published, bytes);
  return { ...published, bytes };
}

/** Runs the daemon until it reports installed or failed; answers that report. */
async function outcome(s: Scenario, name: string, earlierReports = 0) {
  const daemon = DaemonProcess.start(writeConfig(t, s.device, [signer.publicPath], { tuf: { root: rootFile, product: 'gateway' } }));
  try {
    const reports = await eventually(async () => {
      const list = (await updateReports(t.api, s.device.prn)).slice(earlierReports);
      const last = list[list.length - 1];
      return last && (last.status === 'failed' || last.status === 'installed') ? list : null;
    }, `the outcome of ${name}`).catch((error) => {
      throw new Error(`${error.message}\n${daemon.lines.map((l) => JSON.stringify(l)).join('\n')}`);
    });
    return reports[reports.length - 1];
  } finally {
    await daemon.stop();
  }
}

async function refused(s: Scenario, name: string): Promise<string> {
  const report = await outcome(s, name);
  expect(report.status, JSON.stringify(report)).toBe('failed');
  expect(fs.existsSync(s.target)).toBe(false);
  const downloads = path.join(s.device.dir, 'downloads');
  expect(fs.existsSync(downloads) ? fs.readdirSync(downloads).filter((f) => f.endsWith('.bin')) : []).toEqual([]);
  return report.reason!;
}

const trustedRootOnDisk = (s: Scenario) => JSON.parse(fs.readFileSync(path.join(s.device.dir, 'state', 'tuf', 'root.json'), 'utf8')).signed.version;

describe('TUF: the daemon installs only what the offline keys signed', () => {
  it('installs a signed release (the good path)', async () => {
    const s = await scenario('good');
    const r = await release(s, 'good');
    expect((await outcome(s, 'good')).status).toBe('installed');
    expect(fs.readFileSync(s.target).equals(r.bytes)).toBe(true);
  });

  it('refuses arbitrary software: a binary not in the signed targets', async () => {
    const s = await scenario('arbitrary');
    await release(s, 'arbitrary', { signed: false });
    expect(await refused(s, 'arbitrary')).toMatch(/^tuf_not_in_targets: /);
  });

  it('refuses mix-and-match: a release offering the binary of another signed release', async () => {
    const s = await scenario('mix');
    const other = await release(await scenario('mix-source'), 'mix-source');
    const versionPrn = (await ok('GET', `/binaries/${other.binaryPrn}`)).binary.artifact_version_prn;
    const bundle = (await ok('POST', '/bundles', { name: 'mixed', artifact_version_prns: [versionPrn] })).bundle;
    await ok('POST', '/releases', { bundle_prn: bundle.prn, cohort_prn: s.cohortPrn, name: 'mixed', required: false, schedule_date: null });
    expect(await refused(s, 'mix')).toMatch(/^tuf_not_in_targets: /);
  });

  it('refuses endless data: a binary longer than its signed length, before downloading', async () => {
    const s = await scenario('endless');
    const r = await release(s, 'endless');
    await sql(`update binaries set size = size + 1048576 where id = '${r.binaryPrn.split(':').pop()}'`);
    expect(await refused(s, 'endless')).toMatch(/^tuf_length_mismatch: /);
  });

  it('refuses freeze: a timestamp left to expire (signed with the online key, never refreshed)', async () => {
    const s = await scenario('freeze');
    await release(s, 'freeze');
    const stolen = await stolenOnlineKeys();
    const snapshotVersion = (await sql(`select max(version) v from tuf_metadata where organization_id = '${t.organizationId}' and role = 'snapshot'`))[0].v;
    const stale = new Metadata(new Timestamp({ version: 100000, specVersion: '1.0.31', expires: '2020-01-01T00:00:00Z', snapshotMeta: new MetaFile({ version: snapshotVersion }) }));
    stale.sign(tufSigner(stolen.timestamp));
    await sql(`insert into tuf_metadata (organization_id, role, version, body) values ('${t.organizationId}', 'timestamp', 100000, '${JSON.stringify(stale.toJSON())}')`);
    try {
      expect(await refused(s, 'freeze')).toMatch(/^tuf_expired: /);
    } finally {
      await sql(`delete from tuf_metadata where organization_id = '${t.organizationId}' and role = 'timestamp' and version = 100000`);
    }
  });

  it('refuses rollback: older targets served again after a newer one was trusted', async () => {
    const s = await scenario('rollback');
    await release(s, 'rollback-1');
    expect((await outcome(s, 'rollback-1')).status).toBe('installed');
    // The server (with its online keys) serves the gateway targets as they were before the last release.
    const latest = (await sql(`select max(version) v from tuf_metadata where organization_id = '${t.organizationId}' and role = 'gateway'`))[0].v;
    const saved = await sql(`select body from tuf_metadata where organization_id = '${t.organizationId}' and role = 'gateway' and version = ${latest}`);
    await sql(`delete from tuf_metadata where organization_id = '${t.organizationId}' and role = 'gateway' and version = ${latest}`);
    await publishOnlineRoles(t.server.platform, t.organizationId, new Date());
    await publishRelease(t.api, s.cohortPrn, randomBytes(1024), { canopy: { installer: 'file', file: { path: s.target + '.2' }, reboot_required: false } }, [signer], 'rollback-2');
    const earlier = (await updateReports(t.api, s.device.prn)).length;
    try {
      expect((await outcome(s, 'rollback-2', earlier)).reason).toMatch(/^tuf_rollback: /);
      expect(fs.existsSync(s.target + '.2')).toBe(false);
    } finally {
      await sql(`insert into tuf_metadata (organization_id, role, version, body) values ('${t.organizationId}', 'gateway', ${latest}, '${JSON.stringify(saved[0].body)}')`);
      await publishOnlineRoles(t.server.platform, t.organizationId, new Date());
    }
  });

  it('refuses targets signed by a revoked delegated key, even written straight into the database', async () => {
    const revoked = releaseKey;
    releaseKey = generateTufKey();
    await delegateTo(releaseKey);
    const s = await scenario('revoked');
    const r = await release(s, 'revoked-good');
    // The attacker still has the revoked key: it signs targets for a release of its own.
    const forged = withReleaseTargets((await currentGateway()) as never, 'gateway', r.releasePrn, [{ name: r.binaryPrn, sha256: r.hash, length: r.bytes.length }]);
    signWith(forged, [revoked]);
    expect((await t.api('PUT', '/tuf/metadata/gateway', { metadata: forged.toJSON() })).status).toBe(422);
    await sql(`insert into tuf_metadata (organization_id, role, version, body) values ('${t.organizationId}', 'gateway', ${forged.signed.version}, '${JSON.stringify(forged.toJSON())}')`);
    await publishOnlineRoles(t.server.platform, t.organizationId, new Date());
    try {
      expect(await refused(s, 'revoked')).toMatch(/^tuf_signature: /);
    } finally {
      await sql(`delete from tuf_metadata where organization_id = '${t.organizationId}' and role = 'gateway' and version = ${forged.signed.version}`);
      await publishOnlineRoles(t.server.platform, t.organizationId, new Date());
    }
  });

  it('refuses a compromised timestamp key once the root has rotated it', async () => {
    const stolen = await stolenOnlineKeys();
    const fresh = await createdOnlineKeys();
    await ok('PUT', '/tuf/root', { root: signWith(rootWith(2, fresh), [rootKey]).toJSON() });
    const s = await scenario('rotated');
    await release(s, 'rotated');
    const snapshotVersion = (await sql(`select max(version) v from tuf_metadata where organization_id = '${t.organizationId}' and role = 'snapshot'`))[0].v;
    const forged = new Metadata(new Timestamp({ version: 100001, specVersion: '1.0.31', expires: '2099-01-01T00:00:00Z', snapshotMeta: new MetaFile({ version: snapshotVersion }) }));
    forged.sign(tufSigner(stolen.timestamp));
    await sql(`insert into tuf_metadata (organization_id, role, version, body) values ('${t.organizationId}', 'timestamp', 100001, '${JSON.stringify(forged.toJSON())}')`);
    try {
      expect(await refused(s, 'rotated')).toMatch(/^tuf_signature: /);
      // The device followed the signed root chain to version 2 on the way.
      expect(trustedRootOnDisk(s)).toBe(2);
    } finally {
      await sql(`delete from tuf_metadata where organization_id = '${t.organizationId}' and role = 'timestamp' and version = 100001`);
    }
  });

  it('refuses a root update without enough signatures, and keeps its trusted root', async () => {
    const attackerRoot = generateTufKey();
    const stolen = await stolenOnlineKeys();
    const forged = buildRoot({ version: 3, root: { keys: [attackerRoot.key], threshold: 1 }, targets: { keys: [attackerRoot.key], threshold: 1 }, snapshot: { keys: [stolen.snapshot.key], threshold: 1 }, timestamp: { keys: [stolen.timestamp.key], threshold: 1 } });
    signWith(forged, [attackerRoot]);
    await sql(`insert into tuf_metadata (organization_id, role, version, body) values ('${t.organizationId}', 'root', 3, '${JSON.stringify(forged.toJSON())}')`);
    const s = await scenario('root');
    await release(s, 'root');
    try {
      expect(await refused(s, 'root')).toMatch(/^tuf_signature: /);
      expect(trustedRootOnDisk(s)).toBe(2);
    } finally {
      await sql(`delete from tuf_metadata where organization_id = '${t.organizationId}' and role = 'root' and version = 3`);
    }
  });
});
