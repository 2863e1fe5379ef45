import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFieldError, expectPaginated, expectReadOnlyForReadKey, withType } from '../support/resource-checks';
import { startTestServer, type TestServer } from '../support/server';

let t: TestServer;
let productPrn: string;
let cohortPrn: string;
beforeAll(async () => {
  t = await startTestServer();
  productPrn = (await t.api('POST', '/products', { name: 'device-product' })).body.product.prn;
  cohortPrn = (await t.api('POST', '/cohorts', { name: 'main', product_prn: productPrn })).body.cohort.prn;
});
afterAll(async () => {
  await t?.close();
});

let serial = 0;
async function newDevice(fields: Record<string, unknown> = {}) {
  const res = await t.api('POST', '/devices', { identifier: `dev-${++serial}`, product_prn: productPrn, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.device;
}

async function deviceCount() {
  return (await t.api('GET', `/devices?limit=100`)).body.devices.length;
}

const search = (clauses: string) => `/devices?limit=100&search=${encodeURIComponent(clauses)}`;

describe('devices', () => {
  it('creates, reads, lists, updates and deletes a device', async () => {
    const created = await t.api('POST', '/devices', {
      identifier: 'gw-0001',
      product_prn: productPrn,
      cohort_prn: cohortPrn,
      description: 'rack 4',
      tags: ['east', 'beta'],
      target: 'aarch64-unknown-linux-gnu',
      quarantined: true,
    });
    expect(created.status).toBe(201);
    const device = created.body.device;
    expect(device).toEqual({
      prn: expect.stringMatching(new RegExp(`^prn:1:${t.organizationId}:device:[0-9a-f-]{36}$`)),
      organization_prn: `prn:1:${t.organizationId}`,
      identifier: 'gw-0001',
      product_prn: productPrn,
      cohort_prn: cohortPrn,
      description: 'rack 4',
      quarantined: true,
      archived: false,
      tags: ['east', 'beta'],
      target: 'aarch64-unknown-linux-gnu',
      last_connected_at: null,
      reported_bundle_prn: null,
      reported_release_prn: null,
      reported_release_version: null,
      inserted_at: expect.stringMatching(/\.\d{6}Z$/),
      updated_at: expect.stringMatching(/\.\d{6}Z$/),
    });
    expect((await t.api('GET', `/devices/${device.prn}`)).body.device).toEqual(device);

    // The whole object comes back in the PATCH body; read-only fields are ignored.
    const patched = await t.api('PATCH', `/devices/${device.prn}`, { ...device, tags: null, quarantined: false, target: null, last_connected_at: '2020-01-01T00:00:00Z' });
    expect(patched.status).toBe(200);
    expect(patched.body.device).toMatchObject({ tags: null, quarantined: false, target: null, last_connected_at: null, description: 'rack 4' });

    expect((await t.api('GET', '/devices?limit=100')).body.devices.map((d: any) => d.prn)).toContain(device.prn);
    const deleted = await t.api('DELETE', `/devices/${device.prn}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expect((await t.api('GET', `/devices/${device.prn}`)).status).toBe(404);
    expect((await t.api('DELETE', `/devices/${device.prn}`)).status).toBe(404);
  });

  it('records device.updated with the changed fields in GET /events, and nothing for a no-op PATCH', async () => {
    const device = await newDevice({ tags: ['a'] });
    const patched = (await t.api('PATCH', `/devices/${device.prn}`, { quarantined: true, tags: ['a', 'b'], description: device.description })).body.device;
    const events = await t.api('GET', `/events?type=device&resource_prn=${encodeURIComponent(device.prn)}`);
    expect(events.status).toBe(200);
    expect(events.body.events).toHaveLength(1);
    expect(events.body.events[0]).toMatchObject({
      version: 1,
      type: 'device',
      resource_prn: device.prn,
      actor_prn: expect.stringMatching(/^prn:1:/),
      data: { type: 'updated', data: { device: patched, changes: ['quarantined', 'tags'] } },
    });
    const filtered = await t.api('GET', `/events?type=device&subtype=updated&resource_prn=${encodeURIComponent(device.prn)}`);
    expect(filtered.body.events).toHaveLength(1);

    const same = await t.api('PATCH', `/devices/${device.prn}`, { quarantined: true });
    expect(same.body.device.updated_at).toBe(patched.updated_at);
    expect((await t.api('GET', `/events?type=device&resource_prn=${encodeURIComponent(device.prn)}`)).body.events).toHaveLength(1);
  });

  it('validates every field, naming it and writing nothing', async () => {
    await newDevice({ identifier: 'taken-id' });
    const before = await deviceCount();
    const post = (body: Record<string, unknown>) => t.api('POST', '/devices', { identifier: 'fresh', product_prn: productPrn, ...body });
    expectFieldError(await t.api('POST', '/devices', { product_prn: productPrn }), 'identifier', 'required');
    expectFieldError(await post({ identifier: '' }), 'identifier', 'too_short');
    expectFieldError(await post({ identifier: 'i'.repeat(129) }), 'identifier', 'too_long');
    expectFieldError(await post({ identifier: 'taken-id' }), 'identifier', 'taken');
    expectFieldError(await t.api('POST', '/devices', { identifier: 'fresh' }), 'product_prn', 'required');
    expectFieldError(await post({ product_prn: withType(productPrn, 'cohort') }), 'product_prn', 'not_found');
    expectFieldError(await post({ cohort_prn: withType(cohortPrn, 'product') }), 'cohort_prn', 'not_found');
    expectFieldError(await post({ description: '' }), 'description', 'too_short');
    expectFieldError(await post({ description: 'd'.repeat(257) }), 'description', 'too_long');
    expectFieldError(await post({ target: 't'.repeat(129) }), 'target', 'too_long');
    expectFieldError(await post({ target: '' }), 'target', 'too_short');
    expectFieldError(await post({ tags: 'east' }), 'tags', 'invalid_type');
    expectFieldError(await post({ tags: [''] }), 'tags.0', 'too_short');
    expectFieldError(await post({ quarantined: 'yes' }), 'quarantined', 'invalid_type');
    expect(await deviceCount()).toBe(before);

    const device = await newDevice();
    expectFieldError(await t.api('PATCH', `/devices/${device.prn}`, { identifier: 'taken-id' }), 'identifier', 'taken');
    expectFieldError(await t.api('PATCH', `/devices/${device.prn}`, { identifier: '' }), 'identifier', 'too_short');
    expect((await t.api('GET', `/devices/${device.prn}`)).body.device).toEqual(device);
  });

  it('keeps the identifier unique per organization only', async () => {
    const other = await t.createOrganization();
    const theirProduct = (await other.api('POST', '/products', { name: 'p' })).body.product.prn;
    await newDevice({ identifier: 'shared-serial' });
    expect((await other.api('POST', '/devices', { identifier: 'shared-serial', product_prn: theirProduct })).status).toBe(201);
  });

  it("requires the cohort to be one of the device's product", async () => {
    const otherProduct = (await t.api('POST', '/products', { name: 'other-line' })).body.product.prn;
    const otherCohort = (await t.api('POST', '/cohorts', { name: 'other', product_prn: otherProduct })).body.cohort.prn;
    expectFieldError(await t.api('POST', '/devices', { identifier: 'mixed', product_prn: productPrn, cohort_prn: otherCohort }), 'cohort_prn', 'not_in_product');

    const device = await newDevice({ cohort_prn: cohortPrn });
    expectFieldError(await t.api('PATCH', `/devices/${device.prn}`, { cohort_prn: otherCohort }), 'cohort_prn', 'not_in_product');
    // Moving product without saying which cohort would leave it in a cohort of the old product.
    expectFieldError(await t.api('PATCH', `/devices/${device.prn}`, { product_prn: otherProduct }), 'cohort_prn', 'not_in_product');
    const moved = await t.api('PATCH', `/devices/${device.prn}`, { product_prn: otherProduct, cohort_prn: otherCohort });
    expect(moved.body.device).toMatchObject({ product_prn: otherProduct, cohort_prn: otherCohort });
    const uncohorted = await t.api('PATCH', `/devices/${device.prn}`, { cohort_prn: null });
    expect(uncohorted.body.device.cohort_prn).toBeNull();
  });

  it('ties archiving of devices and products together', async () => {
    const product = (await t.api('POST', '/products', { name: 'retiring' })).body.product.prn;
    const device = (await t.api('POST', '/devices', { identifier: 'old-unit', product_prn: product })).body.device;
    const blocked = await t.api('PATCH', `/products/${product}`, { archived: true });
    expect(blocked.status).toBe(409);
    expect(blocked.body.errors[0].code).toBe('product_has_active_devices');

    expect((await t.api('PATCH', `/devices/${device.prn}`, { archived: true })).body.device.archived).toBe(true);
    expect((await t.api('PATCH', `/products/${product}`, { archived: true })).status).toBe(200);

    expectFieldError(await t.api('POST', '/devices', { identifier: 'too-late', product_prn: product }), 'product_prn', 'archived');
    expectFieldError(await t.api('PATCH', `/devices/${device.prn}`, { archived: false }), 'archived', 'product_archived');
    const elsewhere = await newDevice();
    expectFieldError(await t.api('PATCH', `/devices/${elsewhere.prn}`, { product_prn: product }), 'product_prn', 'archived');
    expect((await t.api('PATCH', `/devices/${device.prn}`, { description: 'still editable' })).status).toBe(200);
  });

  it("hides another organization's device and answers a prn of the wrong type with 404", async () => {
    const other = await t.createOrganization();
    const theirProduct = (await other.api('POST', '/products', { name: 'p' })).body.product.prn;
    const theirs = (await other.api('POST', '/devices', { identifier: 'their-unit', product_prn: theirProduct })).body.device;
    expect((await t.api('GET', `/devices/${theirs.prn}`)).status).toBe(404);
    expect((await t.api('PATCH', `/devices/${theirs.prn}`, { description: 'mine' })).status).toBe(404);
    expect((await t.api('DELETE', `/devices/${theirs.prn}`)).status).toBe(404);
    expect((await other.api('GET', `/devices/${theirs.prn}`)).body.device.description).toBeNull();
    expect((await t.api('GET', search("identifier:'their-unit'"))).body.devices).toHaveLength(0);
    expectFieldError(await t.api('POST', '/devices', { identifier: 'x', product_prn: theirProduct }), 'product_prn', 'not_found');
    const mine = await newDevice();
    expect((await t.api('GET', `/devices/${withType(mine.prn, 'cohort')}`)).status).toBe(404);
  });

  it('pages through the list', async () => {
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await newDevice({ target: 'paging-target' })).prn);
    await expectPaginated(t.api, `/devices?search=${encodeURIComponent("target:'paging-target'")}`, 'devices', created);
  });

  it('searches by identifier, tags, quarantined, cohort and dates', async () => {
    const east = await newDevice({ identifier: 'srch-east-1', tags: ['east', 'lab'], quarantined: true, cohort_prn: cohortPrn });
    const west = await newDevice({ identifier: 'srch-west-1', tags: ['west'] });
    const none = await newDevice({ identifier: 'srch-none-1' });
    const prns = async (clauses: string) => {
      const res = await t.api('GET', search(clauses));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.devices.map((d: any) => d.prn).sort();
    };
    expect(await prns("identifier-'SRCH-'")).toEqual([east.prn, west.prn, none.prn].sort());
    expect(await prns("identifier~'SRCH-'")).toEqual([]);
    expect(await prns("tags:'lab'")).toEqual([east.prn]);
    expect(await prns("tags:'lab' and tags:'east' and identifier-'srch'")).toEqual([east.prn]);
    expect(await prns("identifier-'srch' and tags:null")).toEqual([none.prn]);
    expect(await prns("identifier-'srch' and quarantined:true")).toEqual([east.prn]);
    expect(await prns(`identifier-'srch' and cohort_prn:'${cohortPrn}'`)).toEqual([east.prn]);
    expect(await prns(`identifier-'srch' and product_prn:'${productPrn}' and inserted_at>='${east.inserted_at}'`)).toEqual([east.prn, west.prn, none.prn].sort());
    expect(await prns("identifier-'srch' and last_connected_at:null")).toHaveLength(3);

    const badTagOperator = await t.api('GET', search("tags-'ea'"));
    expect(badTagOperator.status).toBe(400);
    expect(badTagOperator.body.errors[0].context).toMatchObject({ parameter: 'search', reason: 'operator_not_allowed', clause: "tags-'ea'" });
    expect((await t.api('GET', search('tags:true'))).body.errors[0].context.reason).toBe('invalid_value');
    expect((await t.api('GET', search("serial:'x'"))).body.errors[0].context.reason).toBe('unknown_field');
  });

  it('lets a read key list but not create', async () => {
    await expectReadOnlyForReadKey(t, '/devices', 'devices', { identifier: 'by-role', product_prn: productPrn });
  });
});
