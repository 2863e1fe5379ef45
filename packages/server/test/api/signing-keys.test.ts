import { createHash, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyPem } from '../../src/signing-keys/service';
import { expectFieldError, expectPaginated, expectReadOnlyForReadKey, withType } from '../support/resource-checks';
import { startTestServer, type TestServer } from '../support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

function ed25519() {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  return { raw, base64: raw.toString('base64'), pem: publicKey.export({ format: 'pem', type: 'spki' }).toString() };
}

async function keyCount() {
  return (await t.api('GET', '/signing_keys?limit=100')).body.signing_keys.length;
}

describe('signing keys', () => {
  it('creates, reads, lists, renames and deletes a key', async () => {
    const key = ed25519();
    const created = await t.api('POST', '/signing_keys', { name: 'release key', value: key.base64 });
    expect(created.status).toBe(201);
    const signingKey = created.body.signing_key;
    expect(signingKey).toEqual({
      prn: expect.stringMatching(new RegExp(`^prn:1:${t.organizationId}:signing_key:[0-9a-f-]{36}$`)),
      organization_prn: `prn:1:${t.organizationId}`,
      name: 'release key',
      value: key.base64,
      keyid: createHash('sha256').update(key.raw).digest('hex'),
      inserted_at: expect.stringMatching(/\.\d{6}Z$/),
      updated_at: expect.stringMatching(/\.\d{6}Z$/),
    });
    expect(publicKeyPem({ value: signingKey.value })).toBe(key.pem);
    expect((await t.api('GET', `/signing_keys/${signingKey.prn}`)).body.signing_key).toEqual(signingKey);

    // The whole object may come back; the same value (in either form) is fine.
    const renamed = await t.api('PATCH', `/signing_keys/${signingKey.prn}`, { ...signingKey, name: 'renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.signing_key).toMatchObject({ name: 'renamed', value: key.base64 });
    expect((await t.api('PATCH', `/signing_keys/${signingKey.prn}`, { value: key.pem })).status).toBe(200);

    expect((await t.api('GET', '/signing_keys?limit=100')).body.signing_keys.map((k: any) => k.prn)).toContain(signingKey.prn);
    expect((await t.api('DELETE', `/signing_keys/${signingKey.prn}`)).status).toBe(204);
    expect((await t.api('GET', `/signing_keys/${signingKey.prn}`)).status).toBe(404);
  });

  it('accepts a PEM SPKI and stores it as base64 of the raw key', async () => {
    const key = ed25519();
    const created = await t.api('POST', '/signing_keys', { name: 'pem key', value: key.pem });
    expect(created.status).toBe(201);
    expect(created.body.signing_key.value).toBe(key.base64);
  });

  it('refuses the same key twice in one organization, in either form, but not across organizations', async () => {
    const key = ed25519();
    await t.api('POST', '/signing_keys', { name: 'first', value: key.base64 });
    expectFieldError(await t.api('POST', '/signing_keys', { name: 'again', value: key.base64 }), 'value', 'taken');
    expectFieldError(await t.api('POST', '/signing_keys', { name: 'again', value: key.pem }), 'value', 'taken');
    const other = await t.createOrganization();
    expect((await other.api('POST', '/signing_keys', { name: 'theirs', value: key.base64 })).status).toBe(201);
  });

  it('validates name and value, naming the field and writing nothing', async () => {
    const before = await keyCount();
    const value = ed25519().base64;
    // An X25519 key has the same size as an Ed25519 one but is not a signing key.
    const x25519 = generateKeyPairSync('x25519').publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expectFieldError(await t.api('POST', '/signing_keys', { value }), 'name', 'required');
    expectFieldError(await t.api('POST', '/signing_keys', { name: '', value }), 'name', 'too_short');
    expectFieldError(await t.api('POST', '/signing_keys', { name: 'n'.repeat(129), value }), 'name', 'too_long');
    expectFieldError(await t.api('POST', '/signing_keys', { name: 'k' }), 'value', 'required');
    expectFieldError(await t.api('POST', '/signing_keys', { name: 'k', value: '' }), 'value', 'too_short');
    expectFieldError(await t.api('POST', '/signing_keys', { name: 'k', value: 'A'.repeat(257) }), 'value', 'too_long');
    expectFieldError(await t.api('POST', '/signing_keys', { name: 'k', value: 'not base64 at all' }), 'value', 'invalid_key');
    expectFieldError(await t.api('POST', '/signing_keys', { name: 'k', value: Buffer.alloc(31, 1).toString('base64') }), 'value', 'invalid_key');
    expectFieldError(await t.api('POST', '/signing_keys', { name: 'k', value: x25519 }), 'value', 'invalid_key');
    expect(await keyCount()).toBe(before);
  });

  it('keeps the value immutable', async () => {
    const signingKey = (await t.api('POST', '/signing_keys', { name: 'fixed', value: ed25519().base64 })).body.signing_key;
    expectFieldError(await t.api('PATCH', `/signing_keys/${signingKey.prn}`, { value: ed25519().base64 }), 'value', 'immutable');
    expectFieldError(await t.api('PATCH', `/signing_keys/${signingKey.prn}`, { name: '' }), 'name', 'too_short');
    expect((await t.api('GET', `/signing_keys/${signingKey.prn}`)).body.signing_key).toEqual(signingKey);
  });

  it("hides another organization's key and answers a prn of the wrong type with 404", async () => {
    const other = await t.createOrganization();
    const theirs = (await other.api('POST', '/signing_keys', { name: 'theirs', value: ed25519().base64 })).body.signing_key;
    expect((await t.api('GET', `/signing_keys/${theirs.prn}`)).status).toBe(404);
    expect((await t.api('PATCH', `/signing_keys/${theirs.prn}`, { name: 'mine' })).status).toBe(404);
    expect((await t.api('DELETE', `/signing_keys/${theirs.prn}`)).status).toBe(404);
    expect((await other.api('GET', `/signing_keys/${theirs.prn}`)).body.signing_key.name).toBe('theirs');
    const mine = (await t.api('POST', '/signing_keys', { name: 'mine', value: ed25519().base64 })).body.signing_key;
    expect((await t.api('GET', `/signing_keys/${withType(mine.prn, 'device')}`)).status).toBe(404);
  });

  it('pages through the list and searches by name and keyid', async () => {
    const created: any[] = [];
    for (let i = 1; i <= 5; i++) created.push((await t.api('POST', '/signing_keys', { name: `paged-${i}`, value: ed25519().base64 })).body.signing_key);
    const prns = created.map((k) => k.prn);
    await expectPaginated(t.api, `/signing_keys?search=${encodeURIComponent("name-'paged-'")}`, 'signing_keys', prns);
    const third = created[2];
    const byKeyid = await t.api('GET', `/signing_keys?search=${encodeURIComponent(`keyid:'${third.keyid}' and name:'paged-3'`)}`);
    expect(byKeyid.body.signing_keys.map((k: any) => k.prn)).toEqual([third.prn]);
  });

  it('lets a read key list but not create', async () => {
    await expectReadOnlyForReadKey(t, '/signing_keys', 'signing_keys', { name: 'by-role', value: ed25519().base64 });
  });
});
