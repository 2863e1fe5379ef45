import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFieldError, expectPaginated, expectReadOnlyForReadKey, withType } from '../support/resource-checks';
import { startTestServer, type TestServer } from '../support/server';

let t: TestServer;
let productPrn: string;
beforeAll(async () => {
  t = await startTestServer();
  productPrn = (await t.api('POST', '/products', { name: 'cohort-product' })).body.product.prn;
});
afterAll(async () => {
  await t?.close();
});

async function cohortCount() {
  return (await t.api('GET', '/cohorts?limit=100')).body.cohorts.length;
}

describe('cohorts', () => {
  it('creates, reads, lists and updates a cohort', async () => {
    const created = await t.api('POST', '/cohorts', { name: 'beta', description: 'early units', product_prn: productPrn });
    expect(created.status).toBe(201);
    const cohort = created.body.cohort;
    expect(cohort).toMatchObject({ name: 'beta', description: 'early units', product_prn: productPrn, organization_prn: `prn:1:${t.organizationId}` });
    expect(cohort.prn).toMatch(new RegExp(`^prn:1:${t.organizationId}:cohort:[0-9a-f-]{36}$`));
    expect(cohort.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

    expect((await t.api('GET', `/cohorts/${cohort.prn}`)).body.cohort).toEqual(cohort);

    // Clients send the whole object back; the unchanged product_prn is accepted.
    const patched = await t.api('PATCH', `/cohorts/${cohort.prn}`, { ...cohort, name: 'beta-2', description: null });
    expect(patched.status).toBe(200);
    expect(patched.body.cohort).toMatchObject({ name: 'beta-2', description: null, product_prn: productPrn });

    const listed = await t.api('GET', '/cohorts?limit=100');
    expect(listed.body.cohorts.map((c: any) => c.prn)).toContain(cohort.prn);
    expect(listed.body.next_page).toBeNull();
  });

  it('has no delete route', async () => {
    const cohort = (await t.api('POST', '/cohorts', { name: 'kept', product_prn: productPrn })).body.cohort;
    expect((await t.api('DELETE', `/cohorts/${cohort.prn}`)).status).toBe(404);
    expect((await t.api('GET', `/cohorts/${cohort.prn}`)).status).toBe(200);
  });

  it('validates name, description and product_prn, naming the field and writing nothing', async () => {
    const before = await cohortCount();
    expectFieldError(await t.api('POST', '/cohorts', { product_prn: productPrn }), 'name', 'required');
    expectFieldError(await t.api('POST', '/cohorts', { name: '', product_prn: productPrn }), 'name', 'too_short');
    expectFieldError(await t.api('POST', '/cohorts', { name: 'x'.repeat(129), product_prn: productPrn }), 'name', 'too_long');
    expectFieldError(await t.api('POST', '/cohorts', { name: 'ok', description: '', product_prn: productPrn }), 'description', 'too_short');
    expectFieldError(await t.api('POST', '/cohorts', { name: 'ok', description: 'd'.repeat(257), product_prn: productPrn }), 'description', 'too_long');
    expectFieldError(await t.api('POST', '/cohorts', { name: 'ok' }), 'product_prn', 'required');
    expectFieldError(await t.api('POST', '/cohorts', { name: 'ok', product_prn: 'nonsense' }), 'product_prn', 'not_found');
    expectFieldError(await t.api('POST', '/cohorts', { name: 'ok', product_prn: withType(productPrn, 'artifact') }), 'product_prn', 'not_found');
    const other = await t.createOrganization();
    const theirProduct = (await other.api('POST', '/products', { name: 'theirs' })).body.product.prn;
    expectFieldError(await t.api('POST', '/cohorts', { name: 'ok', product_prn: theirProduct }), 'product_prn', 'not_found');
    expect(await cohortCount()).toBe(before);
  });

  it('refuses to move a cohort to another product or to break its fields on PATCH', async () => {
    const cohort = (await t.api('POST', '/cohorts', { name: 'stay', product_prn: productPrn })).body.cohort;
    const otherProduct = (await t.api('POST', '/products', { name: 'elsewhere' })).body.product.prn;
    expectFieldError(await t.api('PATCH', `/cohorts/${cohort.prn}`, { product_prn: otherProduct }), 'product_prn', 'immutable');
    expectFieldError(await t.api('PATCH', `/cohorts/${cohort.prn}`, { name: '' }), 'name', 'too_short');
    expect((await t.api('GET', `/cohorts/${cohort.prn}`)).body.cohort).toEqual(cohort);
  });

  it("hides another organization's cohort and answers a prn of the wrong type with 404", async () => {
    const other = await t.createOrganization();
    const theirProduct = (await other.api('POST', '/products', { name: 'p' })).body.product.prn;
    const theirs = (await other.api('POST', '/cohorts', { name: 'theirs', product_prn: theirProduct })).body.cohort;
    expect((await t.api('GET', `/cohorts/${theirs.prn}`)).status).toBe(404);
    expect((await t.api('PATCH', `/cohorts/${theirs.prn}`, { name: 'mine' })).status).toBe(404);
    expect((await other.api('GET', `/cohorts/${theirs.prn}`)).body.cohort.name).toBe('theirs');
    expect((await t.api('GET', '/cohorts?limit=100')).body.cohorts.map((c: any) => c.prn)).not.toContain(theirs.prn);
    const mine = (await t.api('POST', '/cohorts', { name: 'mine', product_prn: productPrn })).body.cohort;
    const wrongType = await t.api('GET', `/cohorts/${withType(mine.prn, 'device')}`);
    expect(wrongType.status).toBe(404);
    expect(wrongType.body.errors[0].code).toBe('not_found');
  });

  it('pages through the list and searches by name and product_prn', async () => {
    const product = (await t.api('POST', '/products', { name: 'paged' })).body.product.prn;
    const created: string[] = [];
    for (const name of ['pg-a', 'pg-b', 'pg-c', 'pg-d', 'pg-e']) created.push((await t.api('POST', '/cohorts', { name, product_prn: product })).body.cohort.prn);
    await expectPaginated(t.api, `/cohorts?search=${encodeURIComponent(`product_prn:'${product}'`)}`, 'cohorts', created);

    const byName = await t.api('GET', `/cohorts?search=${encodeURIComponent("name:'pg-c'")}`);
    expect(byName.body.cohorts.map((c: any) => c.prn)).toEqual([created[2]]);
    const both = await t.api('GET', `/cohorts?search=${encodeURIComponent(`name-'PG-' and product_prn:'${product}' and inserted_at>='2000-01-01T00:00:00Z'`)}`);
    expect(both.body.cohorts).toHaveLength(5);
    const unknown = await t.api('GET', `/cohorts?search=${encodeURIComponent("colour:'red'")}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].context).toMatchObject({ parameter: 'search', reason: 'unknown_field' });
  });

  it('lets a read key list but not create', async () => {
    await expectReadOnlyForReadKey(t, '/cohorts', 'cohorts', { name: 'by-role', product_prn: productPrn });
  });
});
