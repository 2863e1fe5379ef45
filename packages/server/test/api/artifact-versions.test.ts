import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFieldError, expectPaginated, expectReadOnlyForReadKey, withType } from '../support/resource-checks';
import { startTestServer, type TestServer } from '../support/server';

let t: TestServer;
let artifactPrn: string;
beforeAll(async () => {
  t = await startTestServer();
  artifactPrn = (await t.api('POST', '/artifacts', { name: 'firmware' })).body.artifact.prn;
});
afterAll(async () => {
  await t?.close();
});

async function versionCount() {
  return (await t.api('GET', '/artifact_versions?limit=100')).body.artifact_versions.length;
}

describe('artifact versions', () => {
  it('creates, reads, lists, updates and deletes a version', async () => {
    const created = await t.api('POST', '/artifact_versions', { artifact_prn: artifactPrn, version: '1.0.0', description: 'first', custom_metadata: { notes: 'x' } });
    expect(created.status).toBe(201);
    const version = created.body.artifact_version;
    expect(version).toEqual({
      prn: expect.stringMatching(new RegExp(`^prn:1:${t.organizationId}:artifact_version:[0-9a-f-]{36}$`)),
      organization_prn: `prn:1:${t.organizationId}`,
      artifact_prn: artifactPrn,
      version: '1.0.0',
      description: 'first',
      custom_metadata: { notes: 'x' },
      inserted_at: expect.stringMatching(/\.\d{6}Z$/),
      updated_at: expect.stringMatching(/\.\d{6}Z$/),
    });
    expect((await t.api('GET', `/artifact_versions/${version.prn}`)).body.artifact_version).toEqual(version);
    const patched = await t.api('PATCH', `/artifact_versions/${version.prn}`, { ...version, version: '1.0.1', description: null });
    expect(patched.status).toBe(200);
    expect(patched.body.artifact_version).toMatchObject({ version: '1.0.1', description: null, custom_metadata: { notes: 'x' } });
    expect((await t.api('DELETE', `/artifact_versions/${version.prn}`)).status).toBe(204);
    expect((await t.api('GET', `/artifact_versions/${version.prn}`)).status).toBe(404);
  });

  it('takes a caller-chosen id and refuses it a second time with 409', async () => {
    const id = randomUUID();
    const created = await t.api('POST', '/artifact_versions', { id, artifact_prn: artifactPrn, version: 'chosen' });
    expect(created.body.artifact_version.prn).toBe(`prn:1:${t.organizationId}:artifact_version:${id}`);
    const again = await t.api('POST', '/artifact_versions', { id, artifact_prn: artifactPrn, version: 'chosen-2' });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('already_exists');
  });

  it('keeps version unique per artifact only', async () => {
    const other = (await t.api('POST', '/artifacts', { name: 'other' })).body.artifact.prn;
    await t.api('POST', '/artifact_versions', { artifact_prn: artifactPrn, version: '2.0.0' });
    expectFieldError(await t.api('POST', '/artifact_versions', { artifact_prn: artifactPrn, version: '2.0.0' }), 'version', 'taken');
    expect((await t.api('POST', '/artifact_versions', { artifact_prn: other, version: '2.0.0' })).status).toBe(201);
    const v3 = (await t.api('POST', '/artifact_versions', { artifact_prn: artifactPrn, version: '3.0.0' })).body.artifact_version;
    expectFieldError(await t.api('PATCH', `/artifact_versions/${v3.prn}`, { version: '2.0.0' }), 'version', 'taken');
  });

  it('validates every field, naming it and writing nothing', async () => {
    const before = await versionCount();
    const post = (body: Record<string, unknown>) => t.api('POST', '/artifact_versions', { artifact_prn: artifactPrn, version: 'v-new', ...body });
    expectFieldError(await t.api('POST', '/artifact_versions', { version: '1' }), 'artifact_prn', 'required');
    expectFieldError(await t.api('POST', '/artifact_versions', { artifact_prn: artifactPrn }), 'version', 'required');
    expectFieldError(await post({ version: '' }), 'version', 'too_short');
    expectFieldError(await post({ version: 'v'.repeat(129) }), 'version', 'too_long');
    expectFieldError(await post({ description: 'd'.repeat(257) }), 'description', 'too_long');
    expectFieldError(await post({ custom_metadata: { blob: 'x'.repeat(1_000_000) } }), 'custom_metadata', 'too_large');
    expectFieldError(await post({ artifact_prn: withType(artifactPrn, 'product') }), 'artifact_prn', 'not_found');
    const other = await t.createOrganization();
    const theirArtifact = (await other.api('POST', '/artifacts', { name: 'theirs' })).body.artifact.prn;
    expectFieldError(await post({ artifact_prn: theirArtifact }), 'artifact_prn', 'not_found');
    expect(await versionCount()).toBe(before);

    const version = (await post({ version: 'v-fixed' })).body.artifact_version;
    const otherArtifact = (await t.api('POST', '/artifacts', { name: 'elsewhere' })).body.artifact.prn;
    expectFieldError(await t.api('PATCH', `/artifact_versions/${version.prn}`, { artifact_prn: otherArtifact }), 'artifact_prn', 'immutable');
    expect((await t.api('GET', `/artifact_versions/${version.prn}`)).body.artifact_version).toEqual(version);
  });

  it("hides another organization's version and answers a prn of the wrong type with 404", async () => {
    const other = await t.createOrganization();
    const theirArtifact = (await other.api('POST', '/artifacts', { name: 'theirs' })).body.artifact.prn;
    const theirs = (await other.api('POST', '/artifact_versions', { artifact_prn: theirArtifact, version: '1' })).body.artifact_version;
    expect((await t.api('GET', `/artifact_versions/${theirs.prn}`)).status).toBe(404);
    expect((await t.api('PATCH', `/artifact_versions/${theirs.prn}`, { version: '2' })).status).toBe(404);
    expect((await t.api('DELETE', `/artifact_versions/${theirs.prn}`)).status).toBe(404);
    expect((await t.api('GET', `/artifact_versions?artifact_prn=${encodeURIComponent(theirArtifact)}`)).body.artifact_versions).toEqual([]);
    const mine = (await t.api('POST', '/artifact_versions', { artifact_prn: artifactPrn, version: 'typed' })).body.artifact_version;
    expect((await t.api('GET', `/artifact_versions/${withType(mine.prn, 'artifact')}`)).status).toBe(404);
  });

  it('filters by artifact_prn, pages, and searches by version and artifact_prn', async () => {
    const artifact = (await t.api('POST', '/artifacts', { name: 'paged' })).body.artifact.prn;
    const created: string[] = [];
    for (const version of ['0.1', '0.2', '0.3', '0.4', '0.5']) created.push((await t.api('POST', '/artifact_versions', { artifact_prn: artifact, version })).body.artifact_version.prn);
    await expectPaginated(t.api, `/artifact_versions?artifact_prn=${encodeURIComponent(artifact)}`, 'artifact_versions', created);
    const searched = await t.api('GET', `/artifact_versions?search=${encodeURIComponent(`artifact_prn:'${artifact}' and version:'0.3'`)}`);
    expect(searched.body.artifact_versions.map((v: any) => v.prn)).toEqual([created[2]]);
    const substring = await t.api('GET', `/artifact_versions?artifact_prn=${encodeURIComponent(artifact)}&search=${encodeURIComponent("version-'0.'")}`);
    expect(substring.body.artifact_versions).toHaveLength(5);
  });

  it('lets a read key list but not create', async () => {
    await expectReadOnlyForReadKey(t, '/artifact_versions', 'artifact_versions', { artifact_prn: artifactPrn, version: 'by-role' });
  });
});
