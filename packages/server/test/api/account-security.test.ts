/**
 * Log-in throttling (per account and per client address, slowed then locked, in the database so
 * every process agrees), the password hash's parameters and rehashing, as a client sees them.
 * Each test logs in from its own loopback address (127.0.0.x), so address counts do not mix.
 */
import { eq } from 'drizzle-orm';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/accounts/schema';
import { createOrganization } from '../../src/accounts/service';
import { LOGIN_LIMITS } from '../../src/accounts/login-throttle';
import { hashPassword, needsRehash, SCRYPT_PARAMETERS, verifyPassword } from '../../src/accounts/passwords';
import { startServer } from '../../src/server';
import { startTestServer, type TestServer } from '../support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({}, { restartable: true });
});
afterAll(async () => {
  await t?.close();
});

let addressCounter = 10;
const freshAddress = () => `127.0.0.${++addressCounter}`;

/** POST /users/auth from `localAddress`, to `baseUrl` (the test server unless told). */
function logIn(body: Record<string, unknown>, localAddress: string, baseUrl = t.url): Promise<{ status: number; body: any; retryAfter: string | undefined }> {
  const url = new URL('/users/auth', baseUrl);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text), retryAfter: response.headers['retry-after'] as string | undefined }));
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

async function newUser(): Promise<{ username: string; email: string; password: string; prn: string }> {
  const username = `user-${randomUUID().slice(0, 8)}`;
  const email = `${username}@example.com`;
  const password = 'a long enough password';
  const res = await t.api('POST', '/users', { username, email, password, role: 'read' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { username, email, password, prn: res.body.user.prn };
}

/** Fails quickly until the account is locked (slowed attempts count as failures). */
async function lockOut(credentials: Record<string, unknown>, from: string): Promise<void> {
  for (let i = 0; i < LOGIN_LIMITS.account.lockAfter; i++) await logIn({ ...credentials, password: 'wrong password' }, from);
  expect((await logIn({ ...credentials, password: 'wrong password' }, from)).body.errors[0].code).toBe('login_locked');
}

describe('log-in throttling', () => {
  it('slows an account after repeated failures, then locks it (right password or not) with a user.locked event', async () => {
    const user = await newUser();
    const from = freshAddress();
    for (let i = 0; i < LOGIN_LIMITS.account.slowAfter; i++) {
      expect((await logIn({ username: user.username, password: 'wrong password' }, from)).status).toBe(401);
    }
    const slowed = await logIn({ username: user.username, password: user.password }, from);
    expect(slowed.status).toBe(429);
    expect(slowed.body.errors[0]).toMatchObject({ code: 'login_throttled', context: { scope: 'account', retry_after_seconds: expect.any(Number) } });
    expect(Number(slowed.retryAfter)).toBeGreaterThanOrEqual(1);

    // Attempts made while slowed count as failures: hammering leads to the lock.
    let last;
    for (let i = LOGIN_LIMITS.account.slowAfter + 1; i < LOGIN_LIMITS.account.lockAfter; i++) last = await logIn({ username: user.username, password: 'wrong password' }, from);
    expect(last!.status).toBe(429);
    const locked = await logIn({ username: user.username, password: user.password }, from);
    expect(locked.body.errors[0]).toMatchObject({ code: 'login_locked', context: { scope: 'account' } });
    expect(locked.body.errors[0].context.retry_after_seconds).toBeGreaterThan(LOGIN_LIMITS.lockSeconds - 60);
    // From another address too: the lock is the account's.
    expect((await logIn({ username: user.username, password: user.password }, freshAddress())).body.errors[0].code).toBe('login_locked');

    const events = await t.api('GET', `/events?type=user&subtype=locked&resource_prn=${user.prn}`);
    expect(events.status).toBe(200);
    expect(events.body.events).toHaveLength(1);
    expect(events.body.events[0]).toMatchObject({ resource_prn: user.prn, data: { type: 'locked', data: { reason: 'failed_logins', failures: LOGIN_LIMITS.account.lockAfter } } });

    // The lock is in the database: a restarted server, and on PostgreSQL a second server on the same database, keep it.
    await t.restart();
    expect((await logIn({ username: user.username, password: user.password }, freshAddress())).body.errors[0].code).toBe('login_locked');
    if (t.config.databaseUrl) {
      const second = await startServer({ ...t.config, adminPort: 0, devicePort: 0 });
      try {
        expect((await logIn({ username: user.username, password: user.password }, freshAddress(), second.adminUrl)).body.errors[0].code).toBe('login_locked');
      } finally {
        await second.close();
      }
    }
  });

  it('a successful log-in clears the account count; unknown accounts are counted like known ones', async () => {
    const user = await newUser();
    const from = freshAddress();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < LOGIN_LIMITS.account.slowAfter - 1; i++) expect((await logIn({ username: user.username, password: 'wrong password' }, from)).status).toBe(401);
      expect((await logIn({ username: user.username, password: user.password }, from)).status).toBe(200);
    }
    const ghost = `ghost-${randomUUID().slice(0, 8)}`;
    const ghostFrom = freshAddress();
    for (let i = 0; i < LOGIN_LIMITS.account.slowAfter; i++) expect((await logIn({ username: ghost, password: 'whatever password' }, ghostFrom)).status).toBe(401);
    expect((await logIn({ username: ghost, password: 'whatever password' }, ghostFrom)).body.errors[0].code).toBe('login_throttled');
  });

  it('checks at most the limit-many passwords for many concurrent guesses, then refuses even the right one', async () => {
    const user = await newUser();
    const from = freshAddress();
    // On PostgreSQL half the guesses go to a second server process on the same database.
    const second = t.config.databaseUrl ? await startServer({ ...t.config, adminPort: 0, devicePort: 0 }) : null;
    const targets = [t.url, second?.adminUrl ?? t.url];
    let answers;
    try {
      answers = await Promise.all(Array.from({ length: 200 }, (_, i) => logIn({ username: user.username, password: 'wrong password' }, from, targets[i % 2])));
    } finally {
      await second?.close();
    }
    const checked = answers.filter((a) => a.status === 401).length;
    const refused = answers.filter((a) => a.status === 429).map((a) => a.body.errors[0].code);
    // A 401 is a password checked; every other guess was refused before its check.
    expect(checked).toBeGreaterThanOrEqual(1);
    expect(checked).toBeLessThanOrEqual(LOGIN_LIMITS.account.slowAfter);
    expect(refused).toHaveLength(200 - checked);
    expect(refused.every((code) => code === 'login_throttled' || code === 'login_locked')).toBe(true);
    expect(refused.filter((code) => code === 'login_locked').length).toBeGreaterThanOrEqual(200 - LOGIN_LIMITS.account.lockAfter);
    const right = await logIn({ username: user.username, password: user.password }, freshAddress());
    expect(right.status).toBe(429);
    expect(right.body.errors[0]).toMatchObject({ code: 'login_locked', context: { scope: 'account' } });
    const events = await t.api('GET', `/events?type=user&subtype=locked&resource_prn=${user.prn}`);
    expect(events.body.events).toHaveLength(1);
  });

  it('one lock per account: locked by username, log-in by email is refused, and the other way round', async () => {
    const byUsername = await newUser();
    await lockOut({ username: byUsername.username }, freshAddress());
    const viaEmail = await logIn({ email: byUsername.email.toUpperCase(), password: byUsername.password }, freshAddress());
    expect(viaEmail.body.errors[0]).toMatchObject({ code: 'login_locked', context: { scope: 'account' } });

    const byEmail = await newUser();
    await lockOut({ email: byEmail.email }, freshAddress());
    const viaUsername = await logIn({ username: byEmail.username, password: byEmail.password }, freshAddress());
    expect(viaUsername.body.errors[0]).toMatchObject({ code: 'login_locked', context: { scope: 'account' } });
  });

  it('slows one address trying many accounts', async () => {
    const from = freshAddress();
    for (let i = 0; i < LOGIN_LIMITS.address.slowAfter; i++) {
      expect((await logIn({ username: `spray-${i}-${randomUUID().slice(0, 6)}`, password: 'Summer2025!' }, from)).status).toBe(401);
    }
    const next = await logIn({ username: `spray-fresh-${randomUUID().slice(0, 6)}`, password: 'Summer2025!' }, from);
    expect(next.status).toBe(429);
    expect(next.body.errors[0]).toMatchObject({ code: 'login_throttled', context: { scope: 'address' } });
    // Another address is not affected.
    const user = await newUser();
    expect((await logIn({ username: user.username, password: user.password }, freshAddress())).status).toBe(200);
  });
});

describe('emails and usernames are unique across the server', () => {
  it('a name another organization uses answers `taken` for the field and nothing about that organization or user', async () => {
    const theirs = await newUser();
    const other = await t.createOrganization();
    for (const body of [{ email: theirs.email.toUpperCase() }, { username: theirs.username }]) {
      const res = await other.api('POST', '/users', { ...body, password: 'a long enough password' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ errors: [{ code: 'validation', context: { field: Object.keys(body)[0], reason: 'taken' } }] });
    }
    expect((await other.api('GET', '/users')).body.users.map((u: { email: string }) => u.email)).not.toContain(theirs.email);
    // The admin CLI's `org create --email` says the same, not that the organization exists.
    await expect(createOrganization(t.server.platform.db, { name: `org-${randomUUID()}`, adminUser: { email: theirs.email, password: 'a long enough password' } })).rejects.toMatchObject({
      status: 422,
      errors: [{ code: 'validation', context: { field: 'email', reason: 'taken' } }],
    });
  });
});

describe('a new organization (npm run admin -- org create)', () => {
  it('gives its first key to its admin user, as the first start does, so GET /users/me names the user', async () => {
    const username = `founder-${randomUUID().slice(0, 8)}`;
    const made = await createOrganization(t.server.platform.db, { name: `org-${randomUUID()}`, adminUser: { username, password: 'a long enough password' } });
    const me = await t.api('GET', '/users/me', undefined, { key: made.apiKey });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ username, role: 'admin' });
  });
});

describe('password hashes', () => {
  it('use scrypt with at least 16 MiB of memory per hash (memory-hard), a 16-byte salt and a 32-byte key', async () => {
    const { N, r, p, keyLength, saltBytes } = SCRYPT_PARAMETERS;
    expect(128 * N * r).toBeGreaterThanOrEqual(16 * 1024 * 1024);
    expect(p).toBeGreaterThanOrEqual(1);
    const stored = await hashPassword('correct horse battery staple');
    const [scheme, n, rr, pp, salt, hash] = stored.split('$');
    expect([scheme, Number(n), Number(rr), Number(pp)]).toEqual(['scrypt', N, r, p]);
    expect(Buffer.from(salt, 'base64')).toHaveLength(saltBytes);
    expect(Buffer.from(hash, 'base64')).toHaveLength(keyLength);
    expect(await hashPassword('correct horse battery staple')).not.toBe(stored);
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', stored)).toBe(false);
    expect(needsRehash(stored)).toBe(false);
  });

  it('are rewritten with the current parameters at the next successful log-in', async () => {
    const user = await newUser();
    const { db } = t.server.platform;
    // What an older release (N = 2^10) would have stored.
    const { scryptSync, randomBytes } = await import('node:crypto');
    const salt = randomBytes(16);
    const weak = ['scrypt', 1024, 8, 1, salt.toString('base64'), scryptSync(user.password, salt, 32, { N: 1024, r: 8, p: 1 }).toString('base64')].join('$');
    const id = user.prn.split(':').pop()!;
    await db.update(users).set({ passwordHash: weak }).where(eq(users.id, id));
    expect(needsRehash(weak)).toBe(true);

    expect((await logIn({ username: user.username, password: user.password }, freshAddress())).status).toBe(200);
    const [row] = await db.select().from(users).where(eq(users.id, id));
    expect(row.passwordHash).not.toBe(weak);
    expect(needsRehash(row.passwordHash)).toBe(false);
    expect(await verifyPassword(user.password, row.passwordHash)).toBe(true);
    expect((await logIn({ username: user.username, password: user.password }, freshAddress())).status).toBe(200);
  });
});
