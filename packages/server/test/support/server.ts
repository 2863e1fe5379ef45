/**
 * Starts the real platform for a test file, on a free port, over real HTTP, and gives the test
 * a small JSON client. Each test file gets its own database (see database.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config';
import { createOrganization } from '../../src/accounts/service';
import { startServer, type RunningServer, type StartOptions } from '../../src/server';
import { createTestDatabase } from './database';
import { migratedPgliteSeed } from './pglite-seed';
import { storedEventProblems } from './event-catalogue-check';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export type Api = <T = any>(method: string, path: string, body?: unknown, options?: { key?: string | null; headers?: Record<string, string>; raw?: string | Uint8Array }) => Promise<ApiResponse<T>>;

export interface TestServer {
  url: string;
  /** `https://127.0.0.1:<port>` of the device API (mutual TLS); see device-client.ts. */
  deviceUrl: string;
  /** The CA that signed the device API's server certificate (what devices pin). */
  deviceServerCaPem: string;
  /** The bootstrap organization's admin key. */
  apiKey: string;
  organizationId: string;
  /** The bootstrap organization's name (the legacy API's `{org_name}`). */
  organizationName: string;
  server: RunningServer;
  config: Config;
  api: Api;
  /** Another organization with its own admin key, for isolation tests. */
  createOrganization(name?: string): Promise<{ organizationId: string; name: string; apiKey: string; api: Api }>;
  /** A key of the bootstrap organization with the given role. */
  keyWithRole(role: 'read' | 'write' | 'admin', kind?: 'current' | 'legacy'): Promise<string>;
  /** Stops the server and starts it again on the same database and settings (new port). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

function clientFor(baseUrl: string, defaultKey: string | null): Api {
  return async (method, urlPath, body, options = {}) => {
    const key = options.key === undefined ? defaultKey : options.key;
    const headers: Record<string, string> = { ...options.headers };
    if (key) headers.authorization = `Bearer ${key}`;
    let payload: string | Uint8Array | undefined = options.raw;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    // Bytes go as a Blob (a copy on its own ArrayBuffer), the body type every fetch typing takes.
    const bytes = payload === undefined || typeof payload === 'string' ? payload : new Blob([new Uint8Array(payload)]);
    const response = await fetch(`${baseUrl}${urlPath}`, { method, headers, body: bytes });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed as never, headers: response.headers };
  };
}

export interface TestServerOptions extends Pick<StartOptions, 'workers'> {
  /** Keep the database on disk (PGlite) so `restart()` can stop and start the server on it. */
  restartable?: boolean;
}

export async function startTestServer(overrides: Partial<Config> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-test-'));
  const apiKey = `cnpy_test_${randomBytes(24).toString('base64url')}`;
  const config: Config = {
    ...loadConfig({}),
    databaseUrl: database.url,
    dataDir,
    adminPort: 0,
    devicePort: 0,
    bootstrapApiKey: apiKey,
    logLevel: 'silent',
    siteDir: null,
    // Test servers share this machine's network: only the namespace tests run tunnel interfaces.
    tunnelDataPlane: false,
    blobStore: { kind: 'filesystem', root: path.join(dataDir, 'blobs') },
    ...overrides,
  };
  // A restartable server keeps PGlite's files under dataDir, so a second start sees the same data.
  const inMemoryDatabase = !options.restartable;
  const pgliteSeed = inMemoryDatabase && !database.url ? await migratedPgliteSeed() : undefined;
  const startOptions = { inMemoryDatabase, pgliteSeed, workers: options.workers };
  let server = await startServer(config, startOptions);
  let url = server.adminUrl;
  const organizationId = server.bootstrap!.organization.id;
  const organizationName = server.bootstrap!.organization.name;
  return {
    get url() {
      return url;
    },
    get deviceUrl() {
      return server.deviceUrl;
    },
    get deviceServerCaPem() {
      return server.deviceServerCaPem;
    },
    apiKey,
    organizationId,
    organizationName,
    get server() {
      return server;
    },
    config,
    get api() {
      return clientFor(url, apiKey);
    },
    async restart() {
      if (inMemoryDatabase) throw new Error('start the test server with { restartable: true } to restart it');
      await server.close();
      server = await startServer(config, startOptions);
      url = server.adminUrl;
    },
    async createOrganization(name = `org-${randomBytes(4).toString('hex')}`) {
      const created = await createOrganization(server.platform.db, { name });
      return { organizationId: created.organization.id, name, apiKey: created.apiKey, api: clientFor(url, created.apiKey) };
    },
    async keyWithRole(role, kind = 'current') {
      const res = await clientFor(url, apiKey)('POST', '/api_keys', { name: `${role} key`, role, kind });
      if (res.status !== 201) throw new Error(`could not create key: ${JSON.stringify(res.body)}`);
      return res.body.api_key.key as string;
    },
    async close() {
      // What the file's flows stored, checked against the event catalogue before it is dropped.
      const problems = await storedEventProblems(server.platform.db);
      await server.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (problems.length > 0) throw new Error(`events outside the event catalogue:\n${problems.join('\n')}`);
    },
  };
}

/**
 * Starts one server for the surrounding test file (beforeAll) and stops it after (afterAll).
 * The returned object forwards to the running server, so tests write `t.api(...)` directly.
 */
export function useTestServer(overrides: Partial<Config> = {}, options: TestServerOptions = {}): TestServer {
  let running: TestServer | undefined;
  beforeAll(async () => {
    running = await startTestServer(overrides, options);
  });
  afterAll(async () => {
    await running?.close();
  });
  return new Proxy({} as TestServer, {
    get(_, key) {
      if (!running) throw new Error('the test server starts in beforeAll; use it inside tests');
      return running[key as keyof TestServer];
    },
  });
}

/**
 * `url` (which the server writes with its public URL) on the test server itself: the same path,
 * query and fragment. Not a textual replace of the public URL, which would also rewrite a test
 * server's own URL when its port starts with the public one's (port 40001 and :4000).
 */
export function onTestServer(t: Pick<TestServer, 'url'>, url: string): string {
  const parsed = new URL(url);
  return new URL(`${parsed.pathname}${parsed.search}${parsed.hash}`, t.url).toString();
}
