/** The real Canopy server of the server workspace's test harness, and the CLI environment that points at it. */
import { beforeAll } from 'vitest';
import type { TestServer } from '../../../server/test/support/server';
import { temporaryConfigDir } from './temporary-dirs';
export { startTestServer, useTestServer, type TestServer } from '../../../server/test/support/server';
export { temporaryConfigDir };

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
