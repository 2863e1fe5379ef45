import { verify, createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isBundleDistributable, manifestForBundle } from '../../src/binaries/manifest';
import { expectFieldError, expectPaginated } from '../support/resource-checks';
import { bytesOf, createArtifactVersion, ed25519Keypair, sha256, signHash, uploadedBinary } from '../support/binaries';
import { useTestServer } from '../support/server';

const t = useTestServer();
const idOf = (prn: string) => prn.split(':').pop()!;

describe('bundles', () => {
  it('keeps the artifact versions in order, renames, and is otherwise immutable', async () => {
    const a = await createArtifactVersion(t.api);
    const b = await createArtifactVersion(t.api);
    const created = await t.api('POST', '/bundles', { name: 'first', artifact_version_prns: [b.prn, a.prn] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const bundle = created.body.bundle;
    expect(bundle).toMatchObject({ name: 'first', artifact_versions: [{ prn: b.prn, index: 0 }, { prn: a.prn, index: 1 }], artifact_version_prns: [b.prn, a.prn] });
    expect((await t.api('GET', `/bundles/${bundle.prn}`)).body.bundle).toEqual(bundle);
    expect((await t.api('PATCH', `/bundles/${bundle.prn}`, { ...bundle, name: null })).body.bundle.name).toBeNull();
    expectFieldError(await t.api('PATCH', `/bundles/${bundle.prn}`, { artifact_version_prns: [a.prn, b.prn] }), 'artifact_version_prns', 'immutable');
    expect((await t.api('DELETE', `/bundles/${bundle.prn}`)).status).toBe(204);
    expect((await t.api('GET', `/bundles/${bundle.prn}`)).status).toBe(404);
  });

  it('validates name, versions and caller id', async () => {
    const a = await createArtifactVersion(t.api);
    expectFieldError(await t.api('POST', '/bundles', { name: '', artifact_version_prns: [a.prn] }), 'name', 'too_short');
    expectFieldError(await t.api('POST', '/bundles', { name: 'x'.repeat(129), artifact_version_prns: [a.prn] }), 'name', 'too_long');
    expectFieldError(await t.api('POST', '/bundles', { artifact_version_prns: [] }), 'artifact_version_prns', 'too_few');
    expectFieldError(await t.api('POST', '/bundles', {}), 'artifact_version_prns', 'required');
    expectFieldError(await t.api('POST', '/bundles', { artifact_version_prns: [a.prn, a.prn] }), 'artifact_version_prns', 'duplicate_items');
    const other = await t.createOrganization();
    const theirs = await createArtifactVersion(other.api);
    expectFieldError(await t.api('POST', '/bundles', { artifact_version_prns: [a.prn, theirs.prn] }), 'artifact_version_prns.1', 'not_found');
    const id = '0b6f1c2e-5d4a-4c3b-8a9f-1e2d3c4b5a69';
    const withId = await t.api('POST', '/bundles', { id, artifact_version_prns: [a.prn] });
    expect(withId.body.bundle.prn).toBe(`prn:1:${t.organizationId}:bundle:${id}`);
    expect(withId.body.bundle.name).toBeNull();
    expect((await t.api('POST', '/bundles', { id, artifact_version_prns: [a.prn] })).status).toBe(409);
    expect((await other.api('GET', `/bundles/${withId.body.bundle.prn}`)).status).toBe(404);
    expect((await t.api('DELETE', `/artifact_versions/${a.prn}`)).status).toBe(409);
  });

  it('lists with pagination and search', async () => {
    const a = await createArtifactVersion(t.api);
    const prns: string[] = [];
    for (const name of ['list-1', 'list-2', 'list-3']) prns.push((await t.api('POST', '/bundles', { name, artifact_version_prns: [a.prn] })).body.bundle.prn);
    await expectPaginated(t.api, `/bundles?search=${encodeURIComponent("name-'list-'")}`, 'bundles', prns);
  });

  it('builds the manifest and is distributable only when every binary is signed', async () => {
    const keypair = ed25519Keypair();
    const key = (await t.api('POST', '/signing_keys', { name: 'manifest key', value: keypair.value })).body.signing_key;
    const bytes = bytesOf(3000);
    const { prn, versionPrn, binary } = await uploadedBinary(t.api, bytes, { until: 'signable', target: 'arm' });
    const bundle = (await t.api('POST', '/bundles', { artifact_version_prns: [versionPrn] })).body.bundle;
    const db = t.server.platform.db;
    expect(await isBundleDistributable(db, idOf(bundle.prn))).toBe(false);

    await t.api('POST', '/binary_signatures', { binary_prn: prn, signing_key_prn: key.prn, signature: signHash(keypair.privateKey, binary.hash) });
    expect(await isBundleDistributable(db, idOf(bundle.prn))).toBe(true);
    expect(await isBundleDistributable(db, idOf(bundle.prn), 'x86')).toBe(false);

    const [entry, ...rest] = await manifestForBundle(db, t.server.platform, t.organizationId, idOf(bundle.prn), 'arm');
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ binary_prn: prn, artifact_version: { prn: versionPrn, version: '1.0.0' }, hash: sha256(bytes), size: 3000, target: 'arm' });
    const downloaded = Buffer.from(await (await fetch(entry.url)).arrayBuffer());
    expect(downloaded.equals(bytes)).toBe(true);
    const [sig] = entry.signatures;
    expect(sig.signing_key_prn).toBe(key.prn);
    expect(verify(null, Buffer.from(entry.hash, 'ascii'), createPublicKey(sig.public_value), Buffer.from(sig.signature, 'hex'))).toBe(true);
    expect(await manifestForBundle(db, t.server.platform, t.organizationId, idOf(bundle.prn), 'x86')).toEqual([]);
  });
});
