/** The real Canopy server of the server workspace's test harness, and whether a route exists on it yet. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll } from 'vitest';
import type { TestServer } from '../../../server/test/support/server';
export { startTestServer, useTestServer, type TestServer } from '../../../server/test/support/server';

/** True when the server's OpenAPI document lists this path (routes that land later appear here). */
export async function hasRoute(baseUrl: string, method: string, route: string): Promise<boolean> {
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  return Boolean(document.paths[route]?.[method.toLowerCase()]);
}

export function temporaryConfigDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-cli-test-'));
}

/** The environment that points the CLI at `server` with its API key and a config directory of its own. */
export function cliEnv(server: TestServer, configDir = temporaryConfigDir()): Record<string, string> {
  return { CANOPY_BASE_URL: server.url, CANOPY_API_KEY: server.apiKey, CANOPY_CONFIG_DIR: configDir };
}

/** cliEnv for the test file's server (from useTestServer), filled in by beforeAll. */
export function useCliEnv(server: TestServer): Record<string, string> {
  const env: Record<string, string> = {};
  beforeAll(() => {
    Object.assign(env, cliEnv(server));
  });
  return env;
}
