import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server';

const t = useTestServer();

describe('API keys', () => {
  it('refuses a request without a key, with an unknown key or a malformed header', async () => {
    const none = await t.api('GET', '/products', undefined, { key: null });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ errors: [{ code: 'unauthenticated', context: { reason: 'missing_api_key' } }] });
    const unknown = await t.api('GET', '/products', undefined, { key: 'cnpy_not-a-real-key' });
    expect(unknown.body.errors[0]).toEqual({ code: 'unauthenticated', context: { reason: 'invalid_api_key' } });
    const malformed = await t.api('GET', '/products', undefined, { key: null, headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
    expect(malformed.body.errors[0].context.reason).toBe('malformed_authorization_header');
  });

  it('accepts both the Bearer and the Token scheme words', async () => {
    const token = await t.api('GET', '/products', undefined, { key: null, headers: { authorization: `Token ${t.apiKey}` } });
    expect(token.status).toBe(200);
    const lower = await t.api('GET', '/products', undefined, { key: null, headers: { authorization: `bearer ${t.apiKey}` } });
    expect(lower.status).toBe(200);
  });

  it('shows a new key once, stores only its hash, and emits api_key.created', async () => {
    const created = await t.api('POST', '/api_keys', { name: 'ci', role: 'write' });
    expect(created.status).toBe(201);
    const key = created.body.api_key;
    expect(key.key).toMatch(/^cnpy_[A-Za-z0-9_-]{43}$/);
    expect(key).toMatchObject({ name: 'ci', role: 'write', kind: 'current', token_prefix: key.key.slice(0, 12) });
    const listed = await t.api('GET', '/api_keys?limit=100');
    const again = listed.body.api_keys.find((k: any) => k.prn === key.prn);
    expect(again).toBeDefined();
    expect(again.key).toBeUndefined();
    const rows = await t.server.platform.db.execute<{ token_hash: string }>(`select token_hash from api_keys` as never);
    expect(JSON.stringify(rows)).not.toContain(key.key);
    const events = await t.api('GET', `/events?type=api_key&subtype=created&resource_prn=${encodeURIComponent(key.prn)}`);
    expect(events.body.events).toHaveLength(1);
    expect(events.body.events[0]).toMatchObject({ version: 1, type: 'api_key', data: { type: 'created' }, resource_prn: key.prn });
  });

  it('stops accepting a revoked key at once', async () => {
    const created = (await t.api('POST', '/api_keys', { name: 'short-lived', role: 'read' })).body.api_key;
    expect((await t.api('GET', '/products', undefined, { key: created.key })).status).toBe(200);
    expect((await t.api('DELETE', `/api_keys/${created.prn}`)).status).toBe(204);
    expect((await t.api('GET', '/products', undefined, { key: created.key })).status).toBe(401);
  });
});

describe('which routes ask for a key', () => {
  it('asks on every route but the public ones, HEAD included, and not on unknown routes', async () => {
    const product = (await t.api('POST', '/products', { name: 'keyed' })).body.product;
    const head = await t.api('HEAD', `/products/${product.prn}`, undefined, { key: null });
    expect(head.status).toBe(401);
    expect((await t.api('HEAD', `/products/${product.prn}`)).status).toBe(200);
    expect((await t.api('GET', '/healthz', undefined, { key: null })).status).toBe(200);
    expect((await t.api('GET', '/openapi.json', undefined, { key: null })).status).toBe(200);
    const unknown = await t.api('GET', '/gadgets', undefined, { key: null });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].code).toBe('not_found');
  });

  it('answers the request id header on refused requests too', async () => {
    const refused = await t.api('GET', '/products', undefined, { key: null });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('asks a route\'s configured role of a key, whatever the method', async () => {
    const write = await t.keyWithRole('write');
    const refused = await t.api('GET', '/api_keys', undefined, { key: write });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toEqual({ code: 'unauthorized', context: { required_role: 'admin' } });
  });
});

describe('roles', () => {
  it('lets a read key only read', async () => {
    const read = await t.keyWithRole('read');
    expect((await t.api('GET', '/products', undefined, { key: read })).status).toBe(200);
    const write = await t.api('POST', '/products', { name: 'by-reader' }, { key: read });
    expect(write.status).toBe(403);
    expect(write.body.errors[0]).toEqual({ code: 'unauthorized', context: { required_role: 'write' } });
    const list = await t.api('GET', '/products?search=' + encodeURIComponent("name:'by-reader'"));
    expect(list.body.products).toHaveLength(0);
  });

  it('lets a write key change resources but not keys or users', async () => {
    const write = await t.keyWithRole('write');
    expect((await t.api('POST', '/products', { name: 'by-writer' }, { key: write })).status).toBe(201);
    expect((await t.api('POST', '/api_keys', { name: 'x' }, { key: write })).status).toBe(403);
    expect((await t.api('GET', '/api_keys', undefined, { key: write })).status).toBe(403);
    expect((await t.api('POST', '/users', { username: 'eve', password: 'long enough' }, { key: write })).status).toBe(403);
  });

  it('lets an admin key manage keys and users', async () => {
    const admin = await t.keyWithRole('admin');
    expect((await t.api('POST', '/api_keys', { name: 'from admin' }, { key: admin })).status).toBe(201);
    expect((await t.api('POST', '/users', { username: 'operator', password: 'long enough', role: 'write' }, { key: admin })).status).toBe(201);
  });
});

describe('users', () => {
  it('logs in by username or email and answers a token usable as a bearer key', async () => {
    await t.api('POST', '/users', { email: 'Dana@Example.com', username: 'dana', password: 'hunter2hunter2', role: 'write' });
    const byName = await t.api('POST', '/users/auth', { username: 'dana', password: 'hunter2hunter2' }, { key: null });
    expect(byName.status).toBe(200);
    expect(byName.body.data.user).toMatchObject({ username: 'dana', email: 'Dana@Example.com', role: 'write' });
    const me = await t.api('GET', '/users/me', undefined, { key: byName.body.data.token });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ username: 'dana', email: 'Dana@Example.com', role: 'write', organization_prn: `prn:1:${t.organizationId}` });
    const byEmail = await t.api('POST', '/users/auth', { email: 'dana@example.com', password: 'hunter2hunter2' }, { key: null });
    expect(byEmail.status).toBe(200);
    // The session acts with the user's role.
    expect((await t.api('POST', '/api_keys', { name: 'x' }, { key: byEmail.body.data.token })).status).toBe(403);
  });

  it('refuses a wrong password or unknown user the same way', async () => {
    const wrong = await t.api('POST', '/users/auth', { username: 'dana', password: 'nope' }, { key: null });
    const unknown = await t.api('POST', '/users/auth', { username: 'nobody', password: 'nope' }, { key: null });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('needs an email or a username', async () => {
    const neither = await t.api('POST', '/users/auth', { password: 'x' }, { key: null });
    expect(neither.status).toBe(422);
    expect(neither.body.errors[0].context).toMatchObject({ field: 'email', reason: 'required' });
    const taken = await t.api('POST', '/users', { username: 'dana', password: 'long enough' });
    expect(taken.status).toBe(422);
    expect(taken.body.errors[0].context).toMatchObject({ field: 'username', reason: 'taken' });
  });

  it('answers /users/me with the admin user for the first key, and the organization and role for a plain key', async () => {
    const me = await t.api('GET', '/users/me');
    // The first key printed at start belongs to the admin user created with it.
    expect(me.body.data).toMatchObject({ prn: expect.stringMatching(/^prn:1:user:/), email: 'admin@localhost', username: 'admin', role: 'admin', organization_prn: `prn:1:${t.organizationId}` });
    const plain = await t.keyWithRole('read');
    expect((await t.api('GET', '/users/me', undefined, { key: plain })).body.data).toMatchObject({ prn: null, email: null, username: null, role: 'read' });
  });
});

describe('organization isolation of keys and users', () => {
  it('never lists, revokes or shows another organization\'s keys and users', async () => {
    const other = await t.createOrganization();
    const theirKey = (await other.api('POST', '/api_keys', { name: 'theirs' })).body.api_key;
    const theirUser = (await other.api('POST', '/users', { username: `their-${Date.now()}`, password: 'long enough' })).body.user;
    expect((await t.api('DELETE', `/api_keys/${theirKey.prn}`)).status).toBe(404);
    expect((await t.api('DELETE', `/users/${theirUser.prn}`)).status).toBe(404);
    const keys = (await t.api('GET', '/api_keys?limit=100')).body.api_keys.map((k: any) => k.prn);
    const users = (await t.api('GET', '/users?limit=100')).body.users.map((u: any) => u.prn);
    expect(keys).not.toContain(theirKey.prn);
    expect(users).not.toContain(theirUser.prn);
    // Their key still works: nothing was revoked across the boundary.
    expect((await other.api('GET', '/products', undefined, { key: theirKey.key })).status).toBe(200);
  });
});
