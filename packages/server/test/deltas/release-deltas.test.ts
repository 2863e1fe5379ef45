/**
 * Creating a release enqueues the durable delta job for each binary pair (the same artifact and
 * target in the cohort's recent releases); the job makes the delta with the real zstd and stores
 * it in the blob store, where it rebuilds the new binary from the old one.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryDeltas } from '../../src/deltas/schema';
import { jobs } from '../../src/workers/schema';
import { createArtifactVersion, ed25519Keypair, eventually, MiB, signHash, uploadedBinary } from '../support/binaries';
import { FLEET_TARGET, useFleet } from '../support/fleet';
import { makeLeafCertificate, makeRootCa, type TestCertificate } from '../support/certificates';
import { deviceRequest } from '../support/device-client';
import { registerDeviceCertificate, registeredCa } from '../support/device-fleet';
import { onTestServer, useTestServer } from '../support/server';

const t = useTestServer();
const fleet = useFleet(t);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'release-deltas-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let root: TestCertificate;
beforeAll(async () => {
  root = await makeRootCa();
  await registeredCa(t.api, root);
});
const idOf = (prn: string) => prn.split(':').pop()!;

async function release(bundlePrn: string, cohortPrn: string, name: string, version: string) {
  const res = await t.api('POST', '/releases', { bundle_prn: bundlePrn, cohort_prn: cohortPrn, name, version, required: false, schedule_date: null });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.release.prn as string;
}

describe('release deltas', () => {
  it('makes a delta from the previous release\'s binary to the new one, and only for matching pairs', async () => {
    const v1 = await createArtifactVersion(t.api, '1.0.0');
    const v2 = await t.api('POST', '/artifact_versions', { artifact_prn: v1.artifactPrn, version: '2.0.0' });
    const old = Buffer.alloc(2 * MiB, 7);
    for (let i = 0; i < old.length; i += 4096) old.writeUInt32LE(i, i);
    const next = Buffer.from(old);
    next.fill(9, MiB, MiB + 8192);
    const a = await uploadedBinary(t.api, old, { until: 'signable', versionPrn: v1.prn, target: FLEET_TARGET });
    const b = await uploadedBinary(t.api, next, { until: 'signable', versionPrn: v2.body.artifact_version.prn, target: FLEET_TARGET });
    const keypair = ed25519Keypair();
    const key = (await t.api('POST', '/signing_keys', { name: 'deltas', value: keypair.value })).body.signing_key.prn;
    for (const x of [a, b]) {
      const signed = await t.api('POST', '/binary_signatures', { binary_prn: x.prn, signing_key_prn: key, signature: signHash(keypair.privateKey, x.binary.hash) });
      expect(signed.status).toBe(201);
    }
    const bundle1 = (await t.api('POST', '/bundles', { name: 'one', artifact_version_prns: [v1.prn] })).body.bundle.prn;
    const bundle2 = (await t.api('POST', '/bundles', { name: 'two', artifact_version_prns: [v2.body.artifact_version.prn] })).body.bundle.prn;
    const cohort = await fleet.cohort();
    const unrelated = await fleet.bundle();
    const rUnrelated = await release(unrelated.prn, cohort.prn, 'unrelated', '1.0.0');
    const rOne = await release(bundle1, cohort.prn, 'one', '1.1.0');
    await release(bundle2, cohort.prn, 'two', '1.2.0');

    const db = t.server.platform.db;
    const rows = await db.select().from(binaryDeltas).where(eq(binaryDeltas.targetBinaryId, idOf(b.prn)));
    expect(rows.map((r) => r.baseBinaryId)).toEqual([idOf(a.prn)]);
    await eventually(async () => (await db.select().from(binaryDeltas).where(eq(binaryDeltas.id, rows[0]!.id)))[0]!.state !== 'pending', 30_000);
    const [made] = await db.select().from(binaryDeltas).where(eq(binaryDeltas.id, rows[0]!.id));
    expect(made).toMatchObject({ state: 'ready', error: null });
    expect(made!.size!).toBeLessThan(next.length / 10);
    // The job's row goes when its transaction ends, just after the delta's state is written.
    await eventually(async () => (await db.select().from(jobs).where(eq(jobs.kind, 'binary.delta'))).length === 0, 10_000);

    // The stored delta rebuilds the new binary from the old one with nothing but tar and zstd.
    await pipeline(await t.server.platform.blobs.get(made!.blobKey!), fs.createWriteStream(path.join(dir, 'delta.tar')));
    fs.writeFileSync(path.join(dir, 'base'), old);
    execFileSync('tar', ['-xf', path.join(dir, 'delta.tar'), '-C', dir]);
    const rebuilt = execFileSync('zstd', ['-d', '-c', '--long=26', `--patch-from=${path.join(dir, 'base')}`, path.join(dir, '000000.zst')], { maxBuffer: 8 * MiB });
    expect(rebuilt.equals(next)).toBe(true);

    // The admin API shows the pair, its state and size beside the full binary's.
    const listed = await t.api('GET', `/binaries/${b.prn}/deltas`);
    expect(listed.status).toBe(200);
    expect(listed.body.binary_deltas).toEqual([
      expect.objectContaining({ base_binary_prn: a.prn, target_binary_prn: b.prn, state: 'ready', size: made!.size, hash: made!.hash, target_size: next.length, error: null }),
    ]);
    expect((await t.api('GET', `/binaries/${a.prn}/deltas`)).body.binary_deltas).toEqual([]);
    // Another organization sees neither the binary nor its deltas.
    const other = await t.createOrganization();
    const hidden = await other.api('GET', `/binaries/${b.prn}/deltas`);
    expect(hidden.status).toBe(404);
    expect(JSON.stringify(hidden.body)).not.toContain(idOf(a.prn));

    // A device running release one is offered two with the delta from its binary; one running
    // the unrelated release (no binary of that artifact) gets the plain entry.
    const device = await fleet.device({ cohortId: cohort.id });
    const certificate = await makeLeafCertificate(root, `dev-${device.id.slice(0, 8)}`);
    await registerDeviceCertificate(t.api, device.prn, certificate);
    const offered = await deviceRequest(t, '/update?expand=manifest', { credentials: certificate, headers: { 'canopy-release-prn': rOne, 'canopy-release-version': '1.1.0' } });
    expect(offered.body.status, JSON.stringify(offered.body)).toBe('update');
    const entry = offered.body.manifest.find((e: any) => e.binary_prn === b.prn);
    expect(entry.delta).toEqual({ url: expect.any(String), size: made!.size, hash: made!.hash, base_binary_prn: a.prn, base_hash: a.binary.hash });
    const fetched = Buffer.from(await (await fetch(onTestServer(t, entry.delta.url))).arrayBuffer());
    expect(createHash('sha256').update(fetched).digest('hex')).toBe(made!.hash);
    const fromUnrelated = await deviceRequest(t, '/update?expand=manifest', { credentials: certificate, headers: { 'canopy-release-prn': rUnrelated, 'canopy-release-version': '1.0.0' } });
    expect(fromUnrelated.body.manifest.every((e: any) => !('delta' in e))).toBe(true);
  });
});
