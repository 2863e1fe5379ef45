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
import { startServer, type RunningServer } from '../../src/server';
import { createTestDatabase } from './database';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export type Api = <T = any>(method: string, path: string, body?: unknown, options?: { key?: string | null; headers?: Record<string, string>; raw?: string }) => Promise<ApiResponse<T>>;

export interface TestServer {
  url: string;
  /** `https://127.0.0.1:<port>` of the device API (mutual TLS); see device-client.ts. */
  deviceUrl: string;
  /** The CA that signed the device API's server certificate (what devices pin). */
  deviceServerCaPem: string;
  /** The bootstrap organization's admin key. */
  apiKey: string;
  organizationId: string;
  server: RunningServer;
  config: Config;
  api: Api;
  /** Another organization with its own admin key, for isolation tests. */
  createOrganization(name?: string): Promise<{ organizationId: string; apiKey: string; api: Api }>;
  /** A key of the bootstrap organization with the given role. */
  keyWithRole(role: 'read' | 'write' | 'admin', kind?: 'current' | 'legacy'): Promise<string>;
  close(): Promise<void>;
}

function clientFor(baseUrl: string, defaultKey: string | null): Api {
  return async (method, urlPath, body, options = {}) => {
    const key = options.key === undefined ? defaultKey : options.key;
    const headers: Record<string, string> = { ...options.headers };
    if (key) headers.authorization = `Bearer ${key}`;
    let payload: string | undefined = options.raw;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${urlPath}`, { method, headers, body: payload });
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

export async function startTestServer(overrides: Partial<Config> = {}): Promise<TestServer> {
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
    ...overrides,
  };
  const server = await startServer(config, { inMemoryDatabase: true });
  const url = server.adminUrl;
  const api = clientFor(url, apiKey);
  const organizationId = server.bootstrap!.organization.id;
  return {
    url,
    deviceUrl: server.deviceUrl,
    deviceServerCaPem: server.deviceServerCaPem,
    apiKey,
    organizationId,
    server,
    config,
    api,
    async createOrganization(name = `org-${randomBytes(4).toString('hex')}`) {
      const created = await createOrganization(server.platform.db, { name });
      return { organizationId: created.organization.id, apiKey: created.apiKey, api: clientFor(url, created.apiKey) };
    },
    async keyWithRole(role, kind = 'current') {
      const res = await api('POST', '/api_keys', { name: `${role} key`, role, kind });
      if (res.status !== 201) throw new Error(`could not create key: ${JSON.stringify(res.body)}`);
      return res.body.api_key.key as string;
    },
    async close() {
      await server.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts one server for the surrounding test file (beforeAll) and stops it after (afterAll).
 * The returned object forwards to the running server, so tests write `t.api(...)` directly.
 */
export function useTestServer(overrides: Partial<Config> = {}): TestServer {
  let running: TestServer | undefined;
  beforeAll(async () => {
    running = await startTestServer(overrides);
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
