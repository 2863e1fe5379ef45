/**
 * GET /devices and GET /devices/{prn} send the JSON the database keeps in devices.wire_json (its
 * trigger writes it on every insert and update); PATCH still serialises deviceToWire through the
 * response schema. The bytes must be the same, for every kind of value a device can hold and
 * whoever wrote the row.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceWireJsonBody } from '../../src/devices/wire-json-sql';
import { startTestServer, type TestServer } from '../support/server';

let t: TestServer;
let productPrn: string;
let cohortPrn: string;
beforeAll(async () => {
  t = await startTestServer();
  productPrn = (await t.api('POST', '/products', { name: 'wire-product' })).body.product.prn;
  cohortPrn = (await t.api('POST', '/cohorts', { name: 'wire-cohort', product_prn: productPrn })).body.cohort.prn;
});
afterAll(async () => {
  await t?.close();
});

async function raw(method: string, path: string, body?: unknown) {
  const response = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${t.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
}

const AWKWARD = 'quote " backslash \\ slash / newline \n tab \t bell \u0007 unit \u001f del \u007f é 漢 😀 \u2028 </script>';

describe('device wire JSON written by the database', () => {
  it('is byte for byte what the response serialiser writes, in lists and single reads', async () => {
    const created = [
      (await t.api('POST', '/devices', { identifier: 'wire-plain', product_prn: productPrn })).body.device,
      (await t.api('POST', '/devices', { identifier: AWKWARD.slice(0, 60), product_prn: productPrn, cohort_prn: cohortPrn, description: AWKWARD, tags: ['a"b', 'ü\\', '\u0001', '😀'], target: 'x86_64 "quoted"', quarantined: true })).body.device,
      (await t.api('POST', '/devices', { identifier: 'wire-empty-tags', product_prn: productPrn, tags: [], archived: true })).body.device,
    ];
    expect(created.every((device) => typeof device?.prn === 'string')).toBe(true);
    // Fields only the device API sets, and timestamps whose microseconds end in zeros (the
    // database's text drops them, the wire keeps six digits).
    const id = created[1].prn.split(':')[4];
    await t.server.platform.db.execute(sql`update devices set last_connected_at = '2025-01-02 03:04:05.1+00', inserted_at = '2024-12-31 23:59:59+00',
      reported_bundle_prn = ${`prn:1:${t.organizationId}:bundle:0b6f1c2e-5d4a-4c3b-8a9f-1e2d3c4b5a69`}, reported_release_prn = 'rel "x"', reported_release_version = '1.4.2'
      where id = ${id}`);

    const serialised: string[] = [];
    for (const device of created) {
      const patched = await raw('PATCH', `/devices/${device.prn}`, {});
      const got = await raw('GET', `/devices/${device.prn}`);
      expect(got.status).toBe(200);
      expect(got.contentType).toBe(patched.contentType);
      expect(got.text).toBe(patched.text);
      serialised.push(patched.text.slice('{"device":'.length, -1));
    }
    expect(JSON.parse(serialised[1])).toMatchObject({ description: AWKWARD, last_connected_at: '2025-01-02T03:04:05.100000Z', inserted_at: '2024-12-31T23:59:59.000000Z' });

    // Newest first: the third, the first, then the second (its inserted_at was moved back).
    const firstPage = await raw('GET', '/devices?limit=2');
    const nextPage = JSON.parse(firstPage.text).next_page;
    expect(nextPage).toEqual(expect.any(String));
    expect(firstPage.text).toBe(`{"devices":[${serialised[2]},${serialised[0]}],"next_page":${JSON.stringify(nextPage)}}`);
    const secondPage = await raw('GET', `/devices?limit=2&page=${nextPage}`);
    expect(secondPage.text).toBe(`{"devices":[${serialised[1]}],"next_page":null}`);
    const ascending = await raw('GET', '/devices?order=asc&limit=100');
    expect(ascending.text).toBe(`{"devices":[${serialised[1]},${serialised[0]},${serialised[2]}],"next_page":null}`);
    const searched = await raw('GET', `/devices?search=${encodeURIComponent("tags:'a\"b'")}`);
    expect(searched.text).toBe(`{"devices":[${serialised[1]}],"next_page":null}`);
    const none = await raw('GET', `/devices?search=${encodeURIComponent("identifier:'nobody'")}`);
    expect(none.text).toBe('{"devices":[],"next_page":null}');
    expect(none.contentType).toBe(firstPage.contentType);
  });

  it('is kept for rows any writer inserts or updates, not only the API', async () => {
    const id = '3f2e1d0c-9b8a-4f6e-8d5c-4b3a29180716';
    const productId = productPrn.split(':')[4];
    await t.server.platform.db.execute(sql`insert into devices (id, organization_id, product_id, identifier, tags, description)
      values (${id}, ${t.organizationId}, ${productId}, 'wire-raw-insert', array['x', 'y"z'], ${AWKWARD})`);
    const prn = `prn:1:${t.organizationId}:device:${id}`;
    const sameAsSerialiser = async () => {
      const serialised = (await raw('PATCH', `/devices/${prn}`, {})).text;
      expect((await raw('GET', `/devices/${prn}`)).text).toBe(serialised);
      const search = encodeURIComponent("identifier:'wire-raw-insert'");
      expect((await raw('GET', `/devices?search=${search}`)).text).toBe(`{"devices":[${serialised.slice('{"device":'.length, -1)}],"next_page":null}`);
    };
    await sameAsSerialiser();
    await t.server.platform.db.execute(sql`update devices set quarantined = true, tags = null, target = 'raw', last_connected_at = now() where id = ${id}`);
    await sameAsSerialiser();
    expect(JSON.parse((await raw('GET', `/devices/${prn}`)).text).device).toMatchObject({ quarantined: true, tags: null, target: 'raw', description: AWKWARD });
  });

  it('comes from the function generated from the Device schema, as the database holds it', async () => {
    const result = (await t.server.platform.db.execute(sql`select prosrc from pg_proc where proname = 'devices_wire_json'`)) as unknown as { rows: { prosrc: string }[] };
    expect(result.rows).toHaveLength(1);
    expect(result.rows[0].prosrc).toBe(deviceWireJsonBody());
  });
});
