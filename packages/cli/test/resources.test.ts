/** Every command whose route is on the server runs here against a real server. */
import { describe, expect, it } from 'vitest';
import { canopy } from './support/run-canopy';
import { temporaryConfigDir, useCliEnv, useTestServer } from './support/server';

const server = useTestServer();
const env = useCliEnv(server);

describe('products', () => {
  it('create, get, list, update, with JSON and table output', async () => {
    const created = await canopy(['products', 'create', '--name', 'gateway'], env);
    expect(created.code).toBe(0);
    const prn = created.json.product.prn as string;
    expect(prn).toMatch(/^prn:1:.*:product:/);

    const got = await canopy(['products', 'get', prn], env);
    expect(got.json.product.name).toBe('gateway');

    const updated = await canopy(['products', 'update', prn, '--name', 'gateway-2', '--archived', 'true'], env);
    expect(updated.code).toBe(0);
    expect(updated.json.product).toMatchObject({ name: 'gateway-2', archived: true });

    const table = await canopy(['--output', 'table', 'products', 'list'], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/PRN\s+ORGANIZATION_PRN/);
    expect(table.stdout).toContain('gateway-2');
  });

  it('pages with --limit/--page and follows every page with --all; --search and --order pass through', async () => {
    for (const name of ['p-a', 'p-b', 'p-c']) expect((await canopy(['products', 'create', '--name', name], env)).code).toBe(0);
    const first = await canopy(['products', 'list', '--limit', '2', '--order', 'asc'], env);
    expect(first.json.products).toHaveLength(2);
    expect(first.json.next_page).toEqual(expect.any(String));
    const second = await canopy(['products', 'list', '--limit', '2', '--order', 'asc', '--page', first.json.next_page], env);
    expect(second.json.products[0].prn).not.toBe(first.json.products[0].prn);

    const all = await canopy(['products', 'list', '--all', '--limit', '1'], env);
    expect(all.json.products.length).toBeGreaterThanOrEqual(4);
    expect(all.json.next_page).toBeNull();

    const searched = await canopy(['products', 'list', '--search', "name:'p-b'"], env);
    expect(searched.json.products.map((p: { name: string }) => p.name)).toEqual(['p-b']);
  });
});

describe('users and events', () => {
  it('users me answers the organization and role of the key', async () => {
    const me = await canopy(['users', 'me'], env);
    expect(me.code).toBe(0);
    expect(me.json.data).toMatchObject({ role: 'admin', organization_prn: `prn:1:${server.organizationId}` });
  });

  it('users auth logs in and the token works as --api-key', async () => {
    const { username, password } = server.server.bootstrap!;
    const auth = await canopy(['users', 'auth', '--username', username, '--password', password], { ...env, CANOPY_API_KEY: undefined as unknown as string });
    expect(auth.code).toBe(0);
    const me = await canopy(['--api-key', auth.json.data.token, 'users', 'me'], env);
    expect(me.json.data.username).toBe(username);

    const sessions = await canopy(['--api-key', auth.json.data.token, 'users', 'sessions'], env);
    expect(sessions.code).toBe(0);
    expect(sessions.json.sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect((await canopy(['--api-key', auth.json.data.token, 'users', 'sign-out'], env)).code).toBe(0);
    expect((await canopy(['--api-key', auth.json.data.token, 'users', 'me'], env)).code).not.toBe(0);
  });

  it('events list filters by type', async () => {
    await server.keyWithRole('read');
    const events = await canopy(['events', 'list', '--type', 'api_key', '--all'], env);
    expect(events.code).toBe(0);
    expect(events.json.events.length).toBeGreaterThan(0);
    expect(events.json.events.every((e: { type: string }) => e.type === 'api_key')).toBe(true);
  });
});

describe('settings reach the request: flag > env > profile', () => {
  it('a profile alone works; env overrides it; a flag overrides env', async () => {
    const dir = temporaryConfigDir();
    expect((await canopy(['config', 'set', 'base-url', server.url], { CANOPY_CONFIG_DIR: dir })).code).toBe(0);
    expect((await canopy(['config', 'set', 'api-key', server.apiKey], { CANOPY_CONFIG_DIR: dir })).code).toBe(0);
    const me = (args: string[], env: Record<string, string>) => canopy([...args, 'users', 'me'], { CANOPY_CONFIG_DIR: dir, ...env });

    expect((await me([], {})).json.data.role).toBe('admin');
    const wrongKeyInEnv = await me([], { CANOPY_API_KEY: 'cnpy_wrong' });
    expect(wrongKeyInEnv.code).toBe(1);
    expect(wrongKeyInEnv.stderr).toContain('unauthenticated');
    expect((await me(['--api-key', server.apiKey], { CANOPY_API_KEY: 'cnpy_wrong' })).code).toBe(0);

    const deadUrlInEnv = await me([], { CANOPY_BASE_URL: 'http://127.0.0.1:1' });
    expect(deadUrlInEnv.code).toBe(1);
    expect((await me(['--base-url', server.url], { CANOPY_BASE_URL: 'http://127.0.0.1:1' })).code).toBe(0);
  });
});

describe('exit codes', () => {
  it('1 for an API error, with status, code and context in the message', async () => {
    const missing = await canopy(['products', 'get', `prn:1:${server.organizationId}:product:00000000-0000-4000-8000-000000000000`], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/answered 404/);
    expect(missing.stderr).toContain('not_found');

    const invalid = await canopy(['products', 'list', '--search', 'nonsense~~'], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/answered 400/);

    const unauthenticated = await canopy(['products', 'list'], { ...env, CANOPY_API_KEY: 'cnpy_wrong' });
    expect(unauthenticated.code).toBe(1);
    expect(unauthenticated.stderr).toContain('unauthenticated');
  });

  it('1 for a network error', async () => {
    const refused = await canopy(['products', 'list'], { ...env, CANOPY_BASE_URL: 'http://127.0.0.1:1' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/ECONNREFUSED|failed/);
  });

  it('2 for usage errors: missing required flag, bad value, unknown command, no key', async () => {
    expect((await canopy(['products', 'create'], env)).code).toBe(2);
    expect((await canopy(['products', 'list', '--limit', 'ten'], env)).code).toBe(2);
    expect((await canopy(['products', 'update', 'x', '--archived', 'maybe'], env)).code).toBe(2);
    expect((await canopy(['no-such-thing'], env)).code).toBe(2);
    const noKey = await canopy(['products', 'list'], { CANOPY_BASE_URL: server.url, CANOPY_CONFIG_DIR: temporaryConfigDir() });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('no API key');
  });
});
