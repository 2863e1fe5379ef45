import http from 'node:http';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { firmwares } from '../../src/legacy/schema';
import { firmwareKey, fwupArchive, zip } from '../support/fwup';
import { archiveFor, leftovers, legacyOrg, uploadMultipart } from '../support/legacy';
import { onTestServer, useTestServer } from '../support/server';

const t = useTestServer();

const orgPath = (org: { name: string }, product: string, rest = '') => `/orgs/${org.name}/products/${product}/firmwares${rest}`;
const rowsOf = (organizationId: string) => t.server.platform.db.select().from(firmwares).where(eq(firmwares.organizationId, organizationId));

describe('legacy firmware upload', () => {
  it('stores a signed fwup archive on both path families, lists, gets with a 24-hour url, deletes', async () => {
    const org = await legacyOrg(t, 'gateway');
    const first = archiveFor(org, 'gateway', '1.0.0');
    const created = await uploadMultipart(t.url, orgPath(org, 'gateway'), org.key, first.bytes, { ttl: '3600' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({
      uuid: first.uuid,
      version: '1.0.0',
      platform: 'rpi4',
      architecture: 'arm',
      author: 'ops',
      vcs_identifier: 'abc123',
      product: 'gateway',
      product_prn: org.productPrn,
      size: first.bytes.length,
      ttl: 3600,
    });
    expect(Date.parse(created.body.data.expires_at) - Date.now()).toBeGreaterThan(3500_000);

    const second = archiveFor(org, 'gateway', '1.1.0');
    const flat = await uploadMultipart(t.url, '/firmwares', org.key, second.bytes, { product_prn: org.productPrn });
    expect(flat.status, JSON.stringify(flat.body)).toBe(201);
    expect(flat.body.firmware).toMatchObject({ uuid: second.uuid, version: '1.1.0', ttl: null, expires_at: null });

    const listed = await org.api('GET', orgPath(org, 'gateway'));
    expect(listed.body.data.map((f: any) => f.uuid)).toEqual([second.uuid, first.uuid]);
    const flatList = await org.api('GET', `/firmwares?product_prn=${encodeURIComponent(org.productPrn)}&limit=1`);
    expect(flatList.body.firmwares.map((f: any) => f.uuid)).toEqual([second.uuid]);
    expect(flatList.body.next_page).toEqual(expect.any(String));

    const got = await org.api('GET', orgPath(org, 'gateway', `/${first.uuid}?expand=url`));
    expect(got.status).toBe(200);
    const url = new URL(got.body.data.url);
    expect(Number(url.searchParams.get('expires')) * 1000 - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    const download = await fetch(onTestServer(t, got.body.data.url));
    expect(Buffer.from(await download.arrayBuffer()).equals(first.bytes)).toBe(true);
    expect((await org.api('GET', orgPath(org, 'gateway', `/${first.uuid}`))).body.data.url).toBeUndefined();
    expect((await org.api('GET', `/firmwares/${flat.body.firmware.prn}`)).body.firmware.uuid).toBe(second.uuid);
    expect((await org.api('GET', `/firmwares/${second.uuid}?expand=url`)).body.firmware.url).toMatch(/^http/);

    // A product with firmware cannot be archived.
    const archive = await org.api('PATCH', `/products/${org.productPrn}`, { archived: true });
    expect(archive.status).toBe(409);
    expect(archive.body.errors[0].code).toBe('product_has_firmware');

    expect((await org.api('DELETE', orgPath(org, 'gateway', `/${first.uuid}`))).status).toBe(204);
    expect((await org.api('DELETE', `/firmwares/${second.uuid}`, { product_prn: org.productPrn })).status).toBe(204);
    expect((await org.api('GET', orgPath(org, 'gateway', `/${first.uuid}`))).status).toBe(404);
    expect(await rowsOf(org.organizationId)).toEqual([]);
    expect(leftovers(t).blobs.filter((f) => f.includes(org.organizationId))).toEqual([]);
    expect((await org.api('PATCH', `/products/${org.productPrn}`, { archived: true })).status).toBe(200);
  });

  it('answers each bad archive as documented and leaves nothing behind', async () => {
    const org = await legacyOrg(t, 'sensor');
    const upload = (bytes: Buffer | null, fields: Record<string, string> = {}) => uploadMultipart(t.url, orgPath(org, 'sensor'), org.key, bytes, fields);
    const field = (res: { status: number; body: any }) => [res.status, res.body?.errors?.[0]?.context?.field, res.body?.errors?.[0]?.context?.reason];

    // Tampered meta.conf and a signature by a key the organization does not have: 500 invalid_signature.
    const tampered = await upload(archiveFor(org, 'sensor', '1.0.0', { tamper: (text) => text.replace('1.0.0', '9.9.9') }).bytes);
    expect(tampered).toEqual({ status: 500, body: { errors: { detail: 'invalid_signature' } } });
    const stranger = await upload(archiveFor({ signingKey: firmwareKey() }, 'sensor').bytes);
    expect(stranger).toEqual({ status: 500, body: { errors: { detail: 'invalid_signature' } } });
    expect((await upload(archiveFor(org, 'sensor', '1.0.0', { without: 'meta.conf.ed25519' }).bytes)).status).toBe(500);

    expect(field(await upload(archiveFor(org, 'sensor', '1.0.0', { without: 'meta.conf' }).bytes))).toEqual([422, 'firmware', 'missing_meta_conf']);
    expect(field(await upload(Buffer.from('this is not a zip archive at all')))).toEqual([422, 'firmware', 'not_a_fwup_archive']);
    expect(field(await upload(Buffer.alloc(0)))).toEqual([422, 'firmware', 'empty_file']);
    expect(field(await upload(null))).toEqual([422, 'firmware', 'required']);
    expect(field(await upload(archiveFor(org, 'other-product').bytes))).toEqual([422, 'firmware', 'product_mismatch']);
    const noUuid = fwupArchive({ key: org.signingKey, meta: { 'meta-product': 'sensor', 'meta-version': '1' } });
    const missing = await upload(noUuid);
    expect(field(missing)).toEqual([422, 'firmware', 'meta_conf_missing_key']);
    expect(missing.body.errors[0].context.key).toBe('meta-uuid');
    expect(field(await upload(archiveFor(org, 'sensor').bytes, { ttl: 'soon' }))).toEqual([422, 'ttl', 'not_an_integer']);
    expect(field(await upload(archiveFor(org, 'sensor').bytes, { ttl: '0' }))).toEqual([422, 'ttl', 'out_of_range']);
    // A form field named like a prototype key: refused by name, not taken for a cut-off body.
    expect(field(await upload(archiveFor(org, 'sensor').bytes, Object.fromEntries([['__proto__', '1']])))).toEqual([422, '__proto__', 'prototype_key_not_allowed']);
    // A zip whose central directory points past its end.
    const truncated = zip([{ name: 'meta.conf', data: Buffer.from('x') }]);
    truncated.writeUInt32LE(999_999, truncated.length - 6);
    expect(field(await upload(truncated))).toEqual([422, 'firmware', 'not_a_fwup_archive']);
    // Past the entry cap (CANOPY_FIRMWARE_MAX_ENTRIES, 10,000), a second meta.conf, a CRC that fails.
    const crowded = await upload(archiveFor(org, 'sensor', '1.0.0', { emptyEntries: 20_000 }).bytes);
    expect(crowded.body.errors).toEqual([{ code: 'validation', context: { field: 'firmware', reason: 'too_many_entries', max: 10_000 } }]);
    const smuggled = archiveFor(org, 'sensor', '1.0.0', { extra: [{ name: 'meta.conf', data: Buffer.from('meta-product="sensor"\n') }] });
    expect(field(await upload(smuggled.bytes))).toEqual([422, 'firmware', 'duplicate_entry']);
    const corrupted = archiveFor(org, 'sensor').bytes;
    corrupted[corrupted.indexOf('meta-version="') + 'meta-version="'.length] ^= 1;
    const crc = await upload(corrupted);
    expect(crc.body.errors[0].context).toEqual({ field: 'firmware', reason: 'crc_mismatch', entry: 'meta.conf' });

    const good = archiveFor(org, 'sensor');
    expect((await upload(good.bytes)).status).toBe(201);
    const duplicate = await upload(good.bytes);
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0]).toMatchObject({ code: 'firmware_exists', context: { uuid: good.uuid } });

    expect((await rowsOf(org.organizationId)).map((r) => r.uuid)).toEqual([good.uuid]);
    expect(leftovers(t).blobs.filter((f) => f.includes(org.organizationId))).toHaveLength(1);
    expect(leftovers(t).temp).toEqual([]);
  });

  it('leaves nothing behind when the upload is cut off mid-body', async () => {
    const org = await legacyOrg(t, 'cutoff');
    const archive = archiveFor(org, 'cutoff', '1.0.0', { imageBytes: 4 * 1024 * 1024 }).bytes;
    const boundary = 'canopy-test-boundary';
    const head = Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="firmware"; filename="f.fw"\r\ncontent-type: application/octet-stream\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const whole = head.length + archive.length + tail.length;
    await new Promise<void>((resolve) => {
      const request = http.request(`${t.url}${orgPath(org, 'cutoff')}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.key}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(whole) },
      });
      request.on('error', () => resolve());
      request.on('response', (response) => {
        response.resume();
        response.on('end', resolve);
      });
      request.write(head);
      request.write(archive.subarray(0, archive.length / 2), () => setTimeout(() => request.destroy(), 200));
    });
    // The server notices the closed socket and cleans up: no row, no blob, no temp file.
    for (let i = 0; i < 50 && leftovers(t).temp.length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(leftovers(t).temp).toEqual([]);
    expect(await rowsOf(org.organizationId)).toEqual([]);
    expect(leftovers(t).blobs.filter((f) => f.includes(org.organizationId))).toEqual([]);
    // And the server still takes the next upload.
    expect((await uploadMultipart(t.url, orgPath(org, 'cutoff'), org.key, archiveFor(org, 'cutoff').bytes)).status).toBe(201);
  });

  it('isolates organizations and takes legacy and current keys', async () => {
    const org = await legacyOrg(t, 'isolated');
    const other = await legacyOrg(t, 'isolated');
    const mine = archiveFor(org, 'isolated');
    const created = await uploadMultipart(t.url, orgPath(org, 'isolated'), org.key, mine.bytes);
    expect(created.status).toBe(201);
    // Another organization's key on my organization's name, or my firmware by its own paths: 404.
    expect((await uploadMultipart(t.url, orgPath(org, 'isolated'), other.key, archiveFor(org, 'isolated').bytes)).status).toBe(404);
    expect((await other.api('GET', orgPath(org, 'isolated'))).status).toBe(404);
    expect((await other.api('GET', orgPath(org, 'isolated', `/${mine.uuid}`))).status).toBe(404);
    expect((await other.api('GET', orgPath(other, 'isolated', `/${mine.uuid}`))).status).toBe(404);
    expect((await other.api('DELETE', orgPath(other, 'isolated', `/${mine.uuid}`))).status).toBe(404);
    expect((await other.api('GET', `/firmwares/${mine.uuid}`)).status).toBe(404);
    expect((await other.api('GET', `/firmwares/${created.body.data.prn}`)).status).toBe(404);
    expect((await other.api('DELETE', `/firmwares/${mine.uuid}`)).status).toBe(404);
    expect((await other.api('GET', '/firmwares')).body.firmwares).toEqual([]);
    expect((await uploadMultipart(t.url, '/firmwares', other.key, archiveFor(other, 'isolated').bytes, { product_prn: org.productPrn })).body.errors[0].context).toMatchObject({ field: 'product_prn', reason: 'not_found' });
    // The same uuid in another organization is its own firmware (uuids are unique per organization).
    expect((await uploadMultipart(t.url, orgPath(other, 'isolated'), other.key, fwupArchive({ key: other.signingKey, meta: { 'meta-product': 'isolated', 'meta-version': '2', 'meta-uuid': mine.uuid } }))).status).toBe(201);

    // Legacy keys work on these paths like current ones; a read key may not upload.
    const legacyKey = (await org.api('POST', '/api_keys', { name: 'legacy', kind: 'legacy', role: 'write' })).body.api_key.key;
    expect((await uploadMultipart(t.url, orgPath(org, 'isolated'), legacyKey, archiveFor(org, 'isolated').bytes)).status).toBe(201);
    expect((await org.api('GET', orgPath(org, 'isolated'), undefined, { key: legacyKey })).body.data).toHaveLength(2);
    const readKey = (await org.api('POST', '/api_keys', { name: 'read', role: 'read' })).body.api_key.key;
    expect((await uploadMultipart(t.url, orgPath(org, 'isolated'), readKey, archiveFor(org, 'isolated').bytes)).status).toBe(403);
    expect((await uploadMultipart(t.url, orgPath(org, 'isolated'), 'cnpy_nope', archiveFor(org, 'isolated').bytes)).status).toBe(401);
    expect((await org.api('GET', orgPath(org, 'nope'))).status).toBe(404);
  });

  it('deletes unused firmware when its ttl runs out, and keeps firmware a deployment uses', async () => {
    const org = await legacyOrg(t, 'ttl');
    const unused = archiveFor(org, 'ttl', '1.0.0');
    const used = archiveFor(org, 'ttl', '1.1.0');
    expect((await uploadMultipart(t.url, orgPath(org, 'ttl'), org.key, unused.bytes, { ttl: '1' })).status).toBe(201);
    expect((await uploadMultipart(t.url, orgPath(org, 'ttl'), org.key, used.bytes, { ttl: '1' })).status).toBe(201);
    const deployment = await org.api('POST', `/orgs/${org.name}/products/ttl/deployments`, { name: 'keep', firmware: used.uuid });
    expect(deployment.status, JSON.stringify(deployment.body)).toBe(201);
    const gone = async () => (await org.api('GET', orgPath(org, 'ttl', `/${unused.uuid}`))).status === 404;
    for (let i = 0; i < 100 && !(await gone()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await gone()).toBe(true);
    expect((await rowsOf(org.organizationId)).map((r) => r.uuid)).toEqual([used.uuid]);
    // The archive goes right after its row (the row first, so no url is handed out for a missing blob).
    const blobs = () => leftovers(t).blobs.filter((f) => f.includes(org.organizationId));
    for (let i = 0; i < 50 && blobs().length > 1; i++) await new Promise((r) => setTimeout(r, 100));
    expect(blobs()).toHaveLength(1);
    expect((await org.api('DELETE', orgPath(org, 'ttl', `/${used.uuid}`))).body.errors[0].code).toBe('firmware_in_use');
  });
});
