/**
 * --ca-path (and CANOPY_CA_PATH, and a profile's ca-path) make canopy trust a private CA for an
 * HTTPS base URL. The far end is a real HTTPS server with its own CA (the server workspace's test
 * receiver, which records every request and answers 200 "ok"), so the TLS handshake is real.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../server/test/support/webhook-receiver';
import { canopy } from './support/run-canopy';
import { temporaryConfigDir } from './support/server';

let receiver: Receiver;
let baseUrl: string;

beforeAll(async () => {
  receiver = await startReceiver();
  baseUrl = new URL(receiver.url).origin;
});
afterAll(() => receiver?.close());

const reachedWith = (key: string) => receiver.requests.filter((r) => r.path === '/users/me' && r.headers.authorization === `Bearer ${key}`).length;

it('without the CA the handshake fails (exit 1); the CA from a flag, the environment or the profile is trusted', async () => {
  const configDir = temporaryConfigDir();
  const untrusted = await canopy(['--base-url', baseUrl, '--api-key', 'cnpy_untrusted', 'users', 'me'], { CANOPY_CONFIG_DIR: configDir });
  expect(untrusted.code).toBe(1);
  expect(untrusted.stderr).toMatch(/GET https:\/\/localhost:\d+\/users\/me failed/);
  expect(reachedWith('cnpy_untrusted')).toBe(0);

  const byFlag = await canopy(['--base-url', baseUrl, '--api-key', 'cnpy_flag', '--ca-path', receiver.caFile, 'users', 'me'], { CANOPY_CONFIG_DIR: configDir });
  expect(byFlag.code, byFlag.stderr).toBe(0);
  expect(reachedWith('cnpy_flag')).toBe(1);

  const byEnv = await canopy(['--base-url', baseUrl, '--api-key', 'cnpy_env', 'users', 'me'], { CANOPY_CONFIG_DIR: configDir, CANOPY_CA_PATH: receiver.caFile });
  expect(byEnv.code, byEnv.stderr).toBe(0);
  expect(reachedWith('cnpy_env')).toBe(1);

  expect((await canopy(['config', 'set', 'ca-path', receiver.caFile], { CANOPY_CONFIG_DIR: configDir })).code).toBe(0);
  const byProfile = await canopy(['--base-url', baseUrl, '--api-key', 'cnpy_profile', 'users', 'me'], { CANOPY_CONFIG_DIR: configDir });
  expect(byProfile.code, byProfile.stderr).toBe(0);
  expect(reachedWith('cnpy_profile')).toBe(1);
});
