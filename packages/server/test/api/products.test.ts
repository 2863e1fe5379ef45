import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server';

const t = useTestServer();

describe('products', () => {
  it('creates, reads, lists and renames a product', async () => {
    const created = await t.api('POST', '/products', { name: 'gateway' });
    expect(created.status).toBe(201);
    const product = created.body.product;
    expect(product).toMatchObject({ name: 'gateway', archived: false, organization_prn: `prn:1:${t.organizationId}` });
    expect(product.prn).toMatch(new RegExp(`^prn:1:${t.organizationId}:product:[0-9a-f-]{36}$`));
    expect(product.inserted_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

    const got = await t.api('GET', `/products/${product.prn}`);
    expect(got.status).toBe(200);
    expect(got.body.product).toEqual(product);

    const renamed = await t.api('PATCH', `/products/${product.prn}`, { name: 'gateway-2', prn: product.prn });
    expect(renamed.status).toBe(200);
    expect(renamed.body.product.name).toBe('gateway-2');

    const listed = await t.api('GET', '/products?limit=100');
    expect(listed.status).toBe(200);
    expect(listed.body.products.map((p: any) => p.prn)).toContain(product.prn);
    expect(listed.body).toHaveProperty('next_page', null);
  });

  it('rejects a name that is empty, too long or taken, naming the field', async () => {
    const empty = await t.api('POST', '/products', { name: '' });
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual([{ code: 'validation', context: { field: 'name', reason: 'too_short', min: 1 } }]);
    const long = await t.api('POST', '/products', { name: 'x'.repeat(129) });
    expect(long.body.errors[0].context).toMatchObject({ field: 'name', reason: 'too_long', max: 128 });
    const missing = await t.api('POST', '/products', {});
    expect(missing.body.errors[0].context).toMatchObject({ field: 'name', reason: 'required' });
    await t.api('POST', '/products', { name: 'dup' });
    const dup = await t.api('POST', '/products', { name: 'dup' });
    expect(dup.status).toBe(422);
    expect(dup.body.errors[0].context).toMatchObject({ field: 'name', reason: 'taken' });
  });

  it('hides another organization\'s product behind a 404', async () => {
    const other = await t.createOrganization();
    const theirs = (await other.api('POST', '/products', { name: 'theirs' })).body.product;
    expect((await t.api('GET', `/products/${theirs.prn}`)).status).toBe(404);
    expect((await t.api('PATCH', `/products/${theirs.prn}`, { name: 'mine' })).status).toBe(404);
    const mine = await t.api('GET', '/products?limit=100');
    expect(mine.body.products.map((p: any) => p.prn)).not.toContain(theirs.prn);
  });
});
