import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/http/actor';
import { KEY_KINDS, routeKey, type RouteAccessEntry } from '../../src/http/route-access';
import { formatRouteAccess, ROUTE_ACCESS_FILE, routeAccessDocument } from '../../src/openapi/route-access';
import { makeRootCa, makeVerificationCertificate } from '../support/certificates';
import { verificationCode } from '../support/device-fleet';
import { operationsOf } from '../support/fuzz/operations';
import { pathNamingNothing } from '../support/route-resources';
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

describe('legacy paths', () => {
  it('ask the role of their current counterpart: a write key cannot register, delete or list CAs by the organization path', async () => {
    const ca = await makeRootCa();
    const verification = await makeVerificationCertificate(ca, await verificationCode(t.api));
    const write = await t.keyWithRole('write');
    const read = await t.keyWithRole('read');
    const path = `/orgs/${t.organizationName}/ca_certificates`;
    const body = { cert: ca.certPem, verification_cert: verification.certPem };
    const byWriter = await t.api('POST', path, body, { key: write });
    expect(byWriter.status).toBe(403);
    expect(byWriter.body.errors[0]).toEqual({ code: 'unauthorized', context: { required_role: 'admin' } });
    const registered = await t.api('POST', path, body);
    expect(registered.status).toBe(201);
    const serial = registered.body.data.serial;
    expect((await t.api('GET', path, undefined, { key: read })).status).toBe(403);
    expect((await t.api('GET', `${path}/${serial}`, undefined, { key: write })).status).toBe(403);
    expect((await t.api('DELETE', `${path}/${serial}`, undefined, { key: write })).status).toBe(403);
    expect((await t.api('GET', `${path}/${serial}`)).body.data.serial).toBe(serial);
  });
});

const ROLES: Role[] = ['read', 'write', 'admin'];
const RANK: Record<Role, number> = { read: 0, write: 1, admin: 2 };

/** A caller of the matrix: no key, or a key of one kind and role (a session key acts as a current key). */
interface Caller {
  label: string;
  key: string | null;
  role: Role | null;
  keyKind: 'current' | 'legacy' | null;
  /** For a session: a new session of the same user, for a call that ends the calling session. */
  freshSession?: () => Promise<string>;
}

/** Routes that end the session calling them: each session caller spends a fresh session there. */
const ENDS_CALLING_SESSION = new Set(['DELETE /users/me/session']);

interface Probe {
  status: number;
  code: string | undefined;
  context: unknown;
}

/**
 * One request, its answer read only as far as the status and error code (a stream is cut after
 * its headers). A request still unanswered after a few seconds got past the auth hook, which
 * answers at once: it is a stream, status 0.
 */
async function probe(method: string, path: string, key: string | null): Promise<Probe> {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const withBody = ['POST', 'PUT', 'PATCH'].includes(method);
  if (withBody) headers['content-type'] = 'application/json';
  const response = await fetch(`${t.url}${path}`, { method, headers, body: withBody ? '{}' : undefined, signal: AbortSignal.timeout(5_000) }).catch((error: Error) => {
    if (error.name === 'TimeoutError') return null;
    throw error;
  });
  if (response === null) return { status: 0, code: undefined, context: undefined };
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    await response.body?.cancel();
    return { status: response.status, code: undefined, context: undefined };
  }
  const text = await response.text();
  let error: { code?: string; context?: unknown } | undefined;
  try {
    error = JSON.parse(text)?.errors?.[0];
  } catch {
    // not JSON: a page or a file
  }
  return { status: response.status, code: error?.code, context: error?.context };
}

/** Whether the auth hook refused the call: 401, or 403 for the role or key kind (a HEAD answer has no code to tell). */
const refusedByAuth = (entry: RouteAccessEntry, answer: Probe) =>
  answer.status === 401 ||
  (answer.status === 403 && ((entry.method === 'HEAD' && !entry.access.public) || answer.code === 'unauthorized' || /_api_key_not_allowed$/.test(answer.code ?? '')));

/** What the matrix expects of `caller` on a route: null when the call must get past auth. */
function expectedRefusal(entry: RouteAccessEntry, caller: Caller): Partial<Probe> | null {
  const { access } = entry;
  if (access.public) return null;
  if (!caller.key) return { status: 401, code: 'unauthenticated' };
  if (RANK[caller.role!] < RANK[access.role]) return { status: 403, code: 'unauthorized', context: { required_role: access.role } };
  if (!access.keyKinds.includes(caller.keyKind!)) return { status: 403, code: `${caller.keyKind}_api_key_not_allowed` };
  return null;
}

describe('the role matrix, generated from the admin server\'s route table', () => {
  let table: readonly RouteAccessEntry[];
  const callers: Caller[] = [{ label: 'no key', key: null, role: null, keyKind: null }];

  beforeAll(async () => {
    table = t.server.admin.routeAccess();
    for (const role of ROLES) {
      for (const kind of KEY_KINDS) callers.push({ label: `${kind} ${role} key`, key: await t.keyWithRole(role, kind), role, keyKind: kind });
      const username = `matrix-${role}`;
      expect((await t.api('POST', '/users', { username, password: 'long enough', role })).status).toBe(201);
      // The matrix's own calls of POST /users/auth count as failed log-ins from this address, so
      // a log-in here may be told to wait (429 with retry_after_seconds): it waits, a few times.
      const freshSession = async () => {
        for (let attempt = 0; ; attempt++) {
          const answer = await t.api('POST', '/users/auth', { username, password: 'long enough' }, { key: null });
          if (answer.status === 429 && answer.body.errors[0].code === 'login_throttled' && attempt < 5) {
            await new Promise((resolve) => setTimeout(resolve, 1000 * Number(answer.body.errors[0].context.retry_after_seconds)));
            continue;
          }
          expect(answer.status, JSON.stringify(answer.body)).toBe(200);
          return answer.body.data.token as string;
        }
      };
      callers.push({ label: `${role} user session key`, key: await freshSession(), role, keyKind: 'current', freshSession });
    }
  });

  it('holds every route the server serves, each described operation among them', () => {
    const keys = new Set(table.map((entry) => routeKey(entry.method, entry.url.replace(/:([A-Za-z_]+)/g, '{$1}'))));
    const described = operationsOf(t.server.admin.swagger()).map((o) => routeKey(o.method, o.path));
    expect(described.filter((key) => !keys.has(key))).toEqual([]);
    expect(table.length).toBeGreaterThan(150);
    for (const head of table.filter((entry) => entry.method === 'HEAD')) {
      expect(head.access, head.url).toEqual(table.find((entry) => entry.method === 'GET' && entry.url === head.url)?.access);
    }
  });

  it('gives every legacy route the access of the current route it stands for', () => {
    const problems: string[] = [];
    for (const entry of table.filter((e) => e.tags.some((tag) => tag.startsWith('legacy')))) {
      const counterpart = table.find((e) => entry.counterpart?.startsWith(`${e.method} `) && entry.counterpart === routeKey(e.method, e.url));
      if (!counterpart) problems.push(`${entry.method} ${entry.url}: no counterpart`);
      else if (counterpart.tags.some((tag) => tag.startsWith('legacy'))) problems.push(`${entry.method} ${entry.url}: counterpart ${entry.counterpart} is itself legacy`);
      else if (JSON.stringify(counterpart.access) !== JSON.stringify(entry.access)) problems.push(`${entry.method} ${entry.url}: access differs from ${entry.counterpart}`);
    }
    expect(problems).toEqual([]);
  });

  it('answers 401 without a key, 403 below the declared role or key kind, and neither at or above it, on every route', async () => {
    const wrong: string[] = [];
    const cases = table.flatMap((entry) => callers.map((caller) => ({ entry, caller })));
    const known = { org_name: t.organizationName };
    // A few at a time: the server is shared with the other suites of the machine.
    for (let i = 0; i < cases.length; i += 8) {
      await Promise.all(
        cases.slice(i, i + 8).map(async ({ entry, caller }) => {
          const path = pathNamingNothing(entry.url.replace(/:([A-Za-z_]+)/g, '{$1}'), t.organizationId, known);
          const spendsSession = caller.freshSession && ENDS_CALLING_SESSION.has(`${entry.method} ${entry.url}`);
          const answer = await probe(entry.method, path, spendsSession ? await caller.freshSession!() : caller.key);
          const expected = expectedRefusal(entry, caller);
          const where = `${caller.label} ${entry.method} ${path}`;
          if (expected === null && refusedByAuth(entry, answer)) wrong.push(`${where}: ${answer.status} ${answer.code ?? ''}, expected past auth`);
          if (expected !== null) {
            const got = entry.method === 'HEAD' ? { status: answer.status } : { status: answer.status, code: answer.code, ...('context' in expected ? { context: answer.context } : {}) };
            const want = entry.method === 'HEAD' ? { status: expected.status } : expected;
            if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`${where}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
          }
        }),
      );
    }
    expect(wrong).toEqual([]);
    expect(cases.length).toBeGreaterThan(1500);
  }, 180_000);

  it('is what route-access.json says (npm run route-access -w @canopy/server), which the docs site renders', () => {
    expect(fs.readFileSync(ROUTE_ACCESS_FILE, 'utf8')).toBe(formatRouteAccess(routeAccessDocument(table)));
  });
});
