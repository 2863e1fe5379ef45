/**
 * Sessions (POST /users/auth tokens) as a client sees them: sign-out ends the token at once;
 * a user lists their sessions (never a token) and revokes one; an admin does so for a user of
 * the organization and nobody else's; expiry slides with use, ends when idle and at the maximum
 * lifetime; and on PostgreSQL a revocation through one server is refused at once by another
 * (the key caches are cleared by notification, not by their 2 s lifetime).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server';
import { startTestServer, type Api, type TestServer } from '../support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const PASSWORD = 'a long enough password';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function newUser(server: TestServer, role = 'read'): Promise<{ username: string; prn: string }> {
  const username = `user-${randomUUID().slice(0, 8)}`;
  const res = await server.api('POST', '/users', { username, password: PASSWORD, role });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { username, prn: res.body.user.prn };
}

async function logIn(server: TestServer, username: string, userAgent = 'sessions-test/1.0'): Promise<{ token: string; expires_at: string }> {
  const res = await server.api('POST', '/users/auth', { username, password: PASSWORD }, { key: null, headers: { 'user-agent': userAgent } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

const me = (server: { api: Api }, key: string) => server.api('GET', '/users/me', undefined, { key }).then((r) => r.status);

describe('sign-out', () => {
  it('ends the session at once: the same token is refused, and a user.session_revoked event is recorded', async () => {
    const user = await newUser(t);
    const { token } = await logIn(t, user.username);
    expect(await me(t, token)).toBe(200); // now in the key cache

    const out = await t.api('DELETE', '/users/me/session', undefined, { key: token });
    expect(out.status, JSON.stringify(out.body)).toBe(204);
    expect(await me(t, token)).toBe(401);
    expect((await t.api('GET', '/products', undefined, { key: token })).status).toBe(401);
    expect((await t.api('DELETE', '/users/me/session', undefined, { key: token })).status).toBe(401);

    const events = await t.api('GET', `/events?type=user&subtype=session_revoked&resource_prn=${encodeURIComponent(user.prn)}`);
    expect(events.body.events).toHaveLength(1);
    expect(events.body.events[0]).toMatchObject({ actor_prn: user.prn, resource_prn: user.prn, data: { type: 'session_revoked', data: { reason: 'signed_out', user_prn: user.prn } } });
    expect(JSON.stringify(events.body)).not.toContain(token);
  });

  it('refuses to sign out a plain API key (409 not_a_session), which keeps working', async () => {
    const key = await t.keyWithRole('read');
    const res = await t.api('DELETE', '/users/me/session', undefined, { key });
    expect(res.status).toBe(409);
    expect(res.body.errors[0].code).toBe('not_a_session');
    expect(await me(t, key)).toBe(200);
  });
});

describe("a user's sessions", () => {
  it('lists them without tokens, marks the current one, and revokes one at once while the others keep working', async () => {
    const user = await newUser(t);
    const laptop = await logIn(t, user.username, 'laptop-browser/1');
    const phone = await logIn(t, user.username, 'phone-browser/2');
    expect(await me(t, phone.token)).toBe(200);

    const listed = await t.api('GET', '/users/me/sessions', undefined, { key: laptop.token });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.sessions).toHaveLength(2);
    const text = JSON.stringify(listed.body);
    for (const secret of [laptop.token, phone.token, laptop.token.slice(0, 12), phone.token.slice(0, 12)]) expect(text).not.toContain(secret);
    const byAgent = Object.fromEntries(listed.body.sessions.map((s: any) => [s.user_agent, s]));
    expect(byAgent['laptop-browser/1']).toMatchObject({ current: true, user_prn: user.prn, organization_prn: `prn:1:${t.organizationId}` });
    expect(byAgent['phone-browser/2']).toMatchObject({ current: false });
    for (const session of listed.body.sessions) {
      expect(session.prn).toMatch(new RegExp(`^prn:1:${t.organizationId}:session:`));
      for (const field of ['inserted_at', 'last_used_at', 'expires_at', 'ends_at']) expect(Date.parse(session[field]), field).not.toBeNaN();
      expect(Date.parse(session.expires_at)).toBeLessThanOrEqual(Date.parse(session.ends_at));
    }

    const revoked = await t.api('DELETE', `/users/me/sessions/${encodeURIComponent(byAgent['phone-browser/2'].prn)}`, undefined, { key: laptop.token });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(204);
    expect(await me(t, phone.token)).toBe(401);
    expect(await me(t, laptop.token)).toBe(200);
    expect((await t.api('GET', '/users/me/sessions', undefined, { key: laptop.token })).body.sessions.map((s: any) => s.user_agent)).toEqual(['laptop-browser/1']);
    // Already revoked, or never one of this user's: 404.
    expect((await t.api('DELETE', `/users/me/sessions/${encodeURIComponent(byAgent['phone-browser/2'].prn)}`, undefined, { key: laptop.token })).status).toBe(404);
    const stranger = await newUser(t);
    const theirs = await logIn(t, stranger.username);
    const theirPrn = (await t.api('GET', '/users/me/sessions', undefined, { key: theirs.token })).body.sessions[0].prn;
    expect((await t.api('DELETE', `/users/me/sessions/${encodeURIComponent(theirPrn)}`, undefined, { key: laptop.token })).status).toBe(404);
    expect(await me(t, theirs.token)).toBe(200);
  });

  it('renews without writing on every request: last_used_at moves at most once per renewal interval', async () => {
    const user = await newUser(t);
    const { token } = await logIn(t, user.username);
    const first = (await t.api('GET', '/users/me/sessions', undefined, { key: token })).body.sessions[0];
    for (let i = 0; i < 5; i++) expect(await me(t, token)).toBe(200);
    const later = (await t.api('GET', '/users/me/sessions', undefined, { key: token })).body.sessions[0];
    // The default idle timeout (12 h) renews at most once a minute.
    expect(later.last_used_at).toBe(first.last_used_at);
    expect(later.expires_at).toBe(first.expires_at);
  });
});

describe("an admin and a user's sessions", () => {
  it('lists and revokes them within the organization; another organization sees and revokes none', async () => {
    const user = await newUser(t, 'write');
    const { token } = await logIn(t, user.username);
    const path = `/users/${encodeURIComponent(user.prn)}/sessions`;

    const listed = await t.api('GET', path);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.sessions).toHaveLength(1);
    const sessionPrn = listed.body.sessions[0].prn;
    expect(listed.body.sessions[0].current).toBe(false);

    // Not an admin: 403, even for the user's own prn.
    expect((await t.api('GET', path, undefined, { key: token })).status).toBe(403);
    expect((await t.api('GET', path, undefined, { key: await t.keyWithRole('write') })).status).toBe(403);

    const other = await t.createOrganization();
    expect((await other.api('GET', path)).status).toBe(404);
    expect((await other.api('DELETE', `${path}/${encodeURIComponent(sessionPrn)}`)).status).toBe(404);
    expect((await other.api('DELETE', `/users/me/sessions/${encodeURIComponent(sessionPrn)}`)).status).toBe(404);
    // A session prn rewritten into the other organization names nothing either.
    const forged = sessionPrn.replace(t.organizationId, other.organizationId);
    expect((await other.api('DELETE', `/users/me/sessions/${encodeURIComponent(forged)}`)).status).toBe(404);
    expect(await me(t, token)).toBe(200);

    const revoked = await t.api('DELETE', `${path}/${encodeURIComponent(sessionPrn)}`);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(204);
    expect(await me(t, token)).toBe(401);
    const adminPrn = (await t.api('GET', '/users/me')).body.data.prn;
    const events = await t.api('GET', `/events?type=user&subtype=session_revoked&resource_prn=${encodeURIComponent(user.prn)}`);
    expect(events.body.events[0]).toMatchObject({ actor_prn: adminPrn, data: { data: { reason: 'revoked', session: { prn: sessionPrn } } } });
    expect((await other.api('GET', `/events?type=user&subtype=session_revoked`)).body.events).toHaveLength(0);
  });
});

describe('session lifetime', () => {
  let short: TestServer;
  beforeAll(async () => {
    // Injected lifetimes: 2 s idle, 6 s in all (the settings' floor is a minute).
    short = await startTestServer({ sessionIdleTimeoutSeconds: 2, sessionMaxLifetimeSeconds: 6 });
    await newUser(short).then((u) => (shortUser = u.username));
  });
  afterAll(async () => {
    await short?.close();
  });
  let shortUser = '';

  it('slides with use past the idle timeout, and ends when idle', async () => {
    const { token, expires_at } = await logIn(short, shortUser);
    expect(Date.parse(expires_at) - Date.now()).toBeLessThanOrEqual(2_100);
    for (let i = 0; i < 8; i++) {
      await sleep(400);
      expect(await me(short, token), `use ${i}`).toBe(200); // 3.2 s in: past the 2 s idle timeout
    }
    const session = (await short.api('GET', '/users/me/sessions', undefined, { key: token })).body.sessions[0];
    expect(Date.parse(session.expires_at)).toBeGreaterThan(Date.parse(expires_at) + 1_000);
    await sleep(2_500);
    expect(await me(short, token)).toBe(401);
  });

  it('ends at the maximum lifetime, however much it is used', async () => {
    const { token } = await logIn(short, shortUser);
    const started = Date.now();
    let refusedAt: number | null = null;
    while (Date.now() - started < 8_000 && refusedAt === null) {
      await sleep(300);
      if ((await me(short, token)) === 401) refusedAt = Date.now() - started;
    }
    expect(refusedAt).not.toBeNull();
    expect(refusedAt!).toBeGreaterThan(5_000);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('across server processes (PostgreSQL)', () => {
  it('refuses a signed-out session and a revoked API key at once on another server, despite its key cache', async () => {
    const second = await startServer({ ...t.config, adminPort: 0, devicePort: 0 });
    try {
      const onSecond = (key: string) => fetch(`${second.adminUrl}/users/me`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
      const user = await newUser(t);
      const { token } = await logIn(t, user.username);
      expect(await onSecond(token)).toBe(200); // cached by the second server for up to 2 s
      expect((await t.api('DELETE', '/users/me/session', undefined, { key: token })).status).toBe(204);
      await expect.poll(() => onSecond(token), { timeout: 300, interval: 10 }).toBe(401);

      const key = await t.keyWithRole('read');
      expect(await onSecond(key)).toBe(200);
      const keyPrn = (await t.api('GET', '/api_keys?limit=100')).body.api_keys.find((k: any) => key.startsWith(k.token_prefix)).prn;
      expect((await t.api('DELETE', `/api_keys/${encodeURIComponent(keyPrn)}`)).status).toBe(204);
      await expect.poll(() => onSecond(key), { timeout: 300, interval: 10 }).toBe(401);
    } finally {
      await second.close();
    }
  });
});
