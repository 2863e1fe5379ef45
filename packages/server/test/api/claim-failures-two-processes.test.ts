/**
 * The limit on failed claims is one limit across server processes: two processes on one
 * PostgreSQL database take wrong tokens from one address at the same time, and exactly
 * MAX_FAILURES of them are judged (401) before every further claim, through either process and
 * with a good token too, is 429. Per-process counting (the first version) let through twice as
 * many. PostgreSQL only: PGlite is one process's embedded database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FAILURES } from '../../src/claims/failure-limiter';
import { freshClaimKey } from '../support/claims';
import { createTestDatabase, type TestDatabase } from '../support/database';
import type { DeviceTarget } from '../support/device-client';
import { deviceApi } from '../support/device-json-client';
import { freePort, spawnServer, type ServerProcess } from '../support/server-process';

const API_KEY = `cnpy_test_${'c'.repeat(32)}`;

describe.skipIf(!process.env.DATABASE_URL)('failed claims across two server processes', () => {
  let database: TestDatabase;
  let dataDir: string;
  const servers: ServerProcess[] = [];
  const targets: DeviceTarget[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-claims-'));
    for (let i = 0; i < 2; i++) {
      const devicePort = await freePort();
      const env = { DATABASE_URL: database.url!, CANOPY_DATA_DIR: dataDir, CANOPY_BOOTSTRAP_API_KEY: API_KEY, CANOPY_SECRET_KEY: 'ab'.repeat(32), CANOPY_LOG_LEVEL: 'warn', CANOPY_DEVICE_PORT: String(devicePort) };
      servers.push(await spawnServer(env, await freePort()));
      targets.push({ deviceUrl: `https://127.0.0.1:${devicePort}`, deviceServerCaPem: fs.readFileSync(path.join(dataDir, 'device-api', 'ca.pem'), 'utf8') });
    }
  }, 300_000);
  afterAll(async () => {
    for (const server of servers) await server.kill('SIGKILL');
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('judges exactly MAX_FAILURES wrong tokens, then refuses every claim through either process', { timeout: 120_000 }, async () => {
    const admin = (method: string, urlPath: string, body?: unknown) =>
      fetch(`${servers[0].url}${urlPath}`, { method, headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
    const product = (await admin('POST', '/products', { name: 'limited' })).product;
    const token = (await admin('POST', '/claim_tokens', { max_uses: 5, expires_at: new Date(Date.now() + 86_400_000).toISOString(), product_prn: product.prn })).claim_token;
    const key = await freshClaimKey();
    const wrong = (i: number) => deviceApi(targets[i % 2], key)('POST', '/device/claim', { token: `${token.secret}x`, identifier: `guess-${i}` });

    const answers = await Promise.all(Array.from({ length: 2 * MAX_FAILURES }, (_, i) => wrong(i)));
    const codes = answers.map((a) => a.body.errors[0].code);
    expect(codes.filter((c) => c === 'invalid_claim_token')).toHaveLength(MAX_FAILURES);
    expect(codes.filter((c) => c === 'too_many_claim_failures')).toHaveLength(MAX_FAILURES);

    for (const target of targets) {
      const good = await deviceApi(target, key)('POST', '/device/claim', { token: token.secret, identifier: 'honest' });
      expect([good.status, good.body.errors?.[0].code]).toEqual([429, 'too_many_claim_failures']);
    }
  });
});
