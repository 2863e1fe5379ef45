import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFieldError, expectPaginated, expectReadOnlyForReadKey, withType } from '../support/resource-checks';
import { startTestServer, type TestServer } from '../support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

async function artifactCount() {
  return (await t.api('GET', '/artifacts?limit=100')).body.artifacts.length;
}

/** Serialised to just over the 1,000,000-byte limit. */
const OVERSIZED_METADATA = { blob: 'x'.repeat(1_000_000) };

describe('artifacts', () => {
  it('creates, reads, lists, updates and deletes an artifact', async () => {
    const created = await t.api('POST', '/artifacts', { name: 'rootfs', description: 'the OS image', custom_metadata: { board: 'rpi4' } });
    expect(created.status).toBe(201);
    const artifact = created.body.artifact;
    expect(artifact).toEqual({
      prn: expect.stringMatching(new RegExp(`^prn:1:${t.organizationId}:artifact:[0-9a-f-]{36}$`)),
      organization_prn: `prn:1:${t.organizationId}`,
      name: 'rootfs',
      description: 'the OS image',
      custom_metadata: { board: 'rpi4' },
      inserted_at: expect.stringMatching(/\.\d{6}Z$/),
      updated_at: expect.stringMatching(/\.\d{6}Z$/),
    });
    expect((await t.api('GET', `/artifacts/${artifact.prn}`)).body.artifact).toEqual(artifact);

    const patched = await t.api('PATCH', `/artifacts/${artifact.prn}`, { ...artifact, name: 'rootfs-2', custom_metadata: null });
    expect(patched.status).toBe(200);
    expect(patched.body.artifact).toMatchObject({ name: 'rootfs-2', description: 'the OS image', custom_metadata: null });

    expect((await t.api('GET', '/artifacts?limit=100')).body.artifacts.map((a: any) => a.prn)).toContain(artifact.prn);
    expect((await t.api('DELETE', `/artifacts/${artifact.prn}`)).status).toBe(204);
    expect((await t.api('GET', `/artifacts/${artifact.prn}`)).status).toBe(404);
  });

  it('takes a caller-chosen id and refuses it a second time with 409', async () => {
    const id = randomUUID();
    const created = await t.api('POST', '/artifacts', { id, name: 'chosen' });
    expect(created.status).toBe(201);
    expect(created.body.artifact.prn).toBe(`prn:1:${t.organizationId}:artifact:${id}`);
    const again = await t.api('POST', '/artifacts', { id: id.toUpperCase(), name: 'chosen again' });
    expect(again.status).toBe(409);
    expect(again.body.errors[0]).toMatchObject({ code: 'already_exists', context: { resource: 'artifact', id } });
    expectFieldError(await t.api('POST', '/artifacts', { id: 'not-a-uuid', name: 'x' }), 'id', 'invalid_format');
    expectFieldError(await t.api('POST', '/artifacts', { id: `urn:uuid:${randomUUID()}`, name: 'x' }), 'id', 'invalid_format');
  });

  it('validates name, description and custom_metadata, naming the field and writing nothing', async () => {
    const before = await artifactCount();
    expectFieldError(await t.api('POST', '/artifacts', {}), 'name', 'required');
    expectFieldError(await t.api('POST', '/artifacts', { name: '' }), 'name', 'too_short');
    expectFieldError(await t.api('POST', '/artifacts', { name: 'n'.repeat(129) }), 'name', 'too_long');
    expectFieldError(await t.api('POST', '/artifacts', { name: 'ok', description: '' }), 'description', 'too_short');
    expectFieldError(await t.api('POST', '/artifacts', { name: 'ok', description: 'd'.repeat(257) }), 'description', 'too_long');
    expectFieldError(await t.api('POST', '/artifacts', { name: 'ok', custom_metadata: [1, 2] }), 'custom_metadata', 'invalid_type');
    expectFieldError(await t.api('POST', '/artifacts', { name: 'ok', custom_metadata: 'text' }), 'custom_metadata', 'invalid_type');
    const tooLarge = await t.api('POST', '/artifacts', { name: 'ok', custom_metadata: OVERSIZED_METADATA });
    expectFieldError(tooLarge, 'custom_metadata', 'too_large');
    expect(tooLarge.body.errors[0].context.max_bytes).toBe(1_000_000);
    expect(await artifactCount()).toBe(before);

    const artifact = (await t.api('POST', '/artifacts', { name: 'kept' })).body.artifact;
    expectFieldError(await t.api('PATCH', `/artifacts/${artifact.prn}`, { custom_metadata: OVERSIZED_METADATA }), 'custom_metadata', 'too_large');
    expectFieldError(await t.api('PATCH', `/artifacts/${artifact.prn}`, { name: '' }), 'name', 'too_short');
    expect((await t.api('GET', `/artifacts/${artifact.prn}`)).body.artifact).toEqual(artifact);
  });

  it('refuses to delete an artifact while it has versions', async () => {
    const artifact = (await t.api('POST', '/artifacts', { name: 'versioned' })).body.artifact;
    const version = (await t.api('POST', '/artifact_versions', { artifact_prn: artifact.prn, version: '1.0.0' })).body.artifact_version;
    const refused = await t.api('DELETE', `/artifacts/${artifact.prn}`);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toMatchObject({ code: 'artifact_has_versions', context: { prn: artifact.prn } });
    expect((await t.api('DELETE', `/artifact_versions/${version.prn}`)).status).toBe(204);
    expect((await t.api('DELETE', `/artifacts/${artifact.prn}`)).status).toBe(204);
  });

  it("hides another organization's artifact and answers a prn of the wrong type with 404", async () => {
    const other = await t.createOrganization();
    const theirs = (await other.api('POST', '/artifacts', { name: 'theirs' })).body.artifact;
    expect((await t.api('GET', `/artifacts/${theirs.prn}`)).status).toBe(404);
    expect((await t.api('PATCH', `/artifacts/${theirs.prn}`, { name: 'mine' })).status).toBe(404);
    expect((await t.api('DELETE', `/artifacts/${theirs.prn}`)).status).toBe(404);
    expect((await other.api('GET', `/artifacts/${theirs.prn}`)).body.artifact.name).toBe('theirs');
    expect((await t.api('GET', '/artifacts?limit=100')).body.artifacts.map((a: any) => a.prn)).not.toContain(theirs.prn);
    const mine = (await t.api('POST', '/artifacts', { name: 'mine' })).body.artifact;
    expect((await t.api('GET', `/artifacts/${withType(mine.prn, 'artifact_version')}`)).status).toBe(404);
  });

  it('pages through the list and searches by name and description', async () => {
    const created: string[] = [];
    for (const name of ['pg-1', 'pg-2', 'pg-3', 'pg-4', 'pg-5']) created.push((await t.api('POST', '/artifacts', { name, description: 'paged set' })).body.artifact.prn);
    await expectPaginated(t.api, `/artifacts?search=${encodeURIComponent("description:'paged set'")}`, 'artifacts', created);
    const found = await t.api('GET', `/artifacts?search=${encodeURIComponent("name-'PG-3' and description~'paged'")}`);
    expect(found.body.artifacts.map((a: any) => a.prn)).toEqual([created[2]]);
  });

  it('lets a read key list but not create', async () => {
    await expectReadOnlyForReadKey(t, '/artifacts', 'artifacts', { name: 'by-role' });
  });
});
