import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server';

const t = useTestServer();

describe('error shape', () => {
  it('answers malformed JSON with a 400 and writes nothing', async () => {
    const res = await t.api('POST', '/products', undefined, { raw: '{"name": "x",', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ code: 'malformed_body', context: { reason: 'invalid_json' } }] });
    expect((await t.api('GET', '/products')).body.products).toHaveLength(0);
  });

  it('answers a wrong content type with 415', async () => {
    const res = await t.api('POST', '/products', undefined, { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(415);
    expect(res.body.errors[0].code).toBe('unsupported_media_type');
  });

  it('answers an oversized body with 413', async () => {
    const res = await t.api('POST', '/products', { name: 'x', padding: 'y'.repeat(3 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body.errors[0].code).toBe('body_too_large');
  });

  it('answers a body that is not an object with 400', async () => {
    const res = await t.api('POST', '/products', [1, 2]);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe('malformed_body');
  });

  it('answers an unknown route with 404 in the shared shape', async () => {
    const res = await t.api('GET', '/gadgets');
    expect(res.status).toBe(404);
    expect(res.body.errors[0].code).toBe('not_found');
  });

  it('answers a prn of the wrong type or a malformed one with 404', async () => {
    const product = (await t.api('POST', '/products', { name: 'typed' })).body.product;
    expect((await t.api('GET', `/products/${product.prn.replace(':product:', ':cohort:')}`)).status).toBe(404);
    expect((await t.api('GET', '/products/not-a-prn')).status).toBe(404);
  });

  it('ignores unknown keys and refuses wrong types without coercion', async () => {
    const ok = await t.api('POST', '/products', { name: 'extra', colour: 'green', prn: 'prn:1:whatever' });
    expect(ok.status).toBe(201);
    expect(ok.body.product).not.toHaveProperty('colour');
    const typed = await t.api('POST', '/products', { name: 12 });
    expect(typed.status).toBe(422);
    expect(typed.body.errors[0].context).toMatchObject({ field: 'name', reason: 'invalid_type' });
  });

  it('sends a request id header and never a stack trace', async () => {
    const res = await t.api('POST', '/products', undefined, { raw: '{', headers: { 'content-type': 'application/json' } });
    expect(res.headers.get('x-request-id')).toMatch(/[0-9a-f-]{36}/);
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+/);
  });
});

describe('list parameters', () => {
  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['order=sideways', 'order'],
    ['page=not-a-cursor', 'page'],
  ])('answers %s with a 400 naming the parameter', async (query, parameter) => {
    const res = await t.api('GET', `/products?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe('parameter');
    expect(res.body.errors[0].context.parameter).toBe(parameter);
  });

  it('answers a bad search with a 400 naming the clause', async () => {
    const res = await t.api('GET', `/products?search=${encodeURIComponent("name:'a' and colour:'b'")}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].context).toMatchObject({ parameter: 'search', reason: 'unknown_field', clause: "colour:'b'" });
  });
});

describe('keyset pagination', () => {
  it('walks every item exactly once in both orders, even with inserts while paging', async () => {
    const other = await t.createOrganization();
    const names = Array.from({ length: 23 }, (_, i) => `p-${String(i).padStart(2, '0')}`);
    for (const name of names) await other.api('POST', '/products', { name });
    const walk = async (order: 'asc' | 'desc') => {
      const seen: string[] = [];
      let page: string | null = null;
      let first = true;
      do {
        const res: { status: number; body: any } = await other.api('GET', `/products?limit=10&order=${order}${page ? `&page=${page}` : ''}`);
        expect(res.status).toBe(200);
        seen.push(...res.body.products.map((p: any) => p.name));
        page = res.body.next_page;
        // A product created mid-walk is newer than every row seen so far.
        if (first) await other.api('POST', '/products', { name: `late-${order}` });
        first = false;
      } while (page);
      return seen;
    };
    // Ascending, the late product sorts after the cursor and is reached at the end.
    expect(await walk('asc')).toEqual([...names, 'late-asc']);
    // Descending, it sorts before the cursor: the walk neither repeats nor skips anything.
    expect(await walk('desc')).toEqual(['late-asc', ...[...names].reverse()]);
  });

  it('defaults to 10 items, newest first', async () => {
    const other = await t.createOrganization();
    for (let i = 0; i < 12; i++) await other.api('POST', '/products', { name: `d-${i}` });
    const res = await other.api('GET', '/products');
    expect(res.body.products).toHaveLength(10);
    expect(res.body.products[0].name).toBe('d-11');
    expect(res.body.next_page).toEqual(expect.any(String));
  });
});

describe('search', () => {
  it('filters by substring, equality and time', async () => {
    const other = await t.createOrganization();
    for (const name of ['Gateway-East', 'gateway-west', 'sensor']) await other.api('POST', '/products', { name });
    const q = (s: string) => other.api('GET', `/products?limit=100&search=${encodeURIComponent(s)}`).then((r) => r.body.products.map((p: any) => p.name).sort());
    expect(await q("name-'gateway'")).toEqual(['Gateway-East', 'gateway-west']);
    expect(await q("name~'gateway'")).toEqual(['gateway-west']);
    expect(await q("name:'sensor'")).toEqual(['sensor']);
    expect(await q("inserted_at>='2000-01-01T00:00:00Z' and name-'EAST'")).toEqual(['Gateway-East']);
    expect(await q("inserted_at<'2000-01-01T00:00:00Z'")).toEqual([]);
    expect(await q('archived:false and name:\'sensor\'')).toEqual(['sensor']);
  });
});

describe('events', () => {
  it('filters by type, subtype, actor, resource and time, and checks its parameters', async () => {
    const key = (await t.api('POST', '/api_keys', { name: 'evented' })).body.api_key;
    const base = `/events?limit=100&type=api_key&subtype=created`;
    const all = (await t.api('GET', base)).body.events;
    expect(all.map((e: any) => e.resource_prn)).toContain(key.prn);
    const event = all.find((e: any) => e.resource_prn === key.prn);
    expect(event.prn).toMatch(new RegExp(`^prn:1:${t.organizationId}:event:`));
    expect(event.inserted_at).toMatch(/\.\d{6}Z$/);
    const byActor = (await t.api('GET', `${base}&actor_prn=${encodeURIComponent(event.actor_prn)}`)).body.events;
    expect(byActor.map((e: any) => e.prn)).toContain(event.prn);
    expect((await t.api('GET', `${base}&inserted_at_lt=${encodeURIComponent(event.inserted_at)}&resource_prn=${encodeURIComponent(key.prn)}`)).body.events).toHaveLength(0);
    expect((await t.api('GET', `${base}&inserted_at_gte=${encodeURIComponent(event.inserted_at)}&resource_prn=${encodeURIComponent(key.prn)}`)).body.events).toHaveLength(1);
    expect((await t.api('GET', '/events?type=device&subtype=created')).body.events).toHaveLength(0);
    expect((await t.api('GET', '/events?inserted_at_lt=yesterday')).status).toBe(400);
    expect((await t.api('GET', '/events?type=gadget')).status).toBe(400);
  });

  it('never shows another organization\'s events', async () => {
    const other = await t.createOrganization();
    const theirs = (await other.api('POST', '/api_keys', { name: 'theirs' })).body.api_key;
    const mine = (await t.api('GET', `/events?limit=100&resource_prn=${encodeURIComponent(theirs.prn)}`)).body.events;
    expect(mine).toHaveLength(0);
  });
});
