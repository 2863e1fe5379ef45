/**
 * A reconnect storm, lean: STORM_DEVICES devices (JITP on first connection, the device test
 * support's client: a new mutual-TLS connection per call, as a reconnecting device makes) connect
 * at once to a server process with handshake shedding: more arrive at once than handshakes may be
 * in flight (CANOPY_DEVICE_HANDSHAKE_CONCURRENCY, set low), so first attempts are shed before any
 * TLS work, and more are while the event loop runs late (the default limit). While the storm lasts, the
 * admin API keeps answering: none of its calls fail, and its p99 stays under ADMIN_P99_BOUND_MS.
 * In the end every device is served, each admitted once (one device row each). The full size,
 * 5,000 devices, is `npm run storm -w @canopy/bench`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeLeafCertificate, makeRootCa } from '../support/certificates';
import { createTestDatabase } from '../support/database';
import { adminProbeThread } from '../support/admin-probe-thread';
import { registeredCa } from '../support/device-fleet';
import { deviceApi } from '../support/device-json-client';
import { cleanupsAfterAll, freePort, processApi, spawnServer, type ServerProcess } from '../support/server-process';
import type { Api } from '../support/server';

const STORM_DEVICES = 150;
/**
 * Handshakes in flight at most: far lower than the default (64) so that first attempts are shed
 * on a quiet machine, where 150 handshakes may finish nearly as fast as they arrive (one run at
 * the default shed a single attempt), and on a busy one, where this process opens its connections
 * more slowly (one CI run beside a browser benchmark shed none at 16).
 */
const HANDSHAKE_CONCURRENCY = 4;
/**
 * The admin p99 during the storm, at most (its calls timed from a thread of their own). Measured
 * with PostgreSQL on a 2-core machine shared with several other test runs (load average 31-37,
 * the server's event loop 100-700 ms late with no storm at all): 7.2 s and 5.6 s, against 0.7 s
 * and 1.0 s quiet in the same runs. The bound is what that starved machine achieved with margin; a quiet CI machine
 * should stay far below it.
 */
const ADMIN_P99_BOUND_MS = 10_000;

const cleanup = cleanupsAfterAll();


const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];

describe('reconnect storm', () => {
  it('sheds handshakes, keeps the admin API answering, and serves every device in the end', async () => {
    const database = await createTestDatabase();
    const databaseEnv: Record<string, string> = database.url ? { DATABASE_URL: database.url } : {};
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-storm-'));
    cleanup(() => database.drop(), () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const key = `cnpy_storm_${randomBytes(24).toString('base64url')}`;
    const devicePort = await freePort();
    const server: ServerProcess = await spawnServer(
      { ...databaseEnv, CANOPY_DATA_DIR: dataDir, CANOPY_BOOTSTRAP_API_KEY: key, CANOPY_DEVICE_PORT: String(devicePort), CANOPY_DEVICE_HANDSHAKE_CONCURRENCY: String(HANDSHAKE_CONCURRENCY), CANOPY_LOG_LEVEL: 'warn' },
      await freePort(),
    );
    cleanup(() => server.kill('SIGKILL'));
    const api = processApi(server.url, key);
    const caPem = fs.readFileSync(path.join(dataDir, 'device-api', 'ca.pem'), 'utf8');

    const product = (await api('POST', '/products', { name: 'storm' })).body.product;
    const cohort = (await api('POST', '/cohorts', { name: 'storm', product_prn: product.prn })).body.cohort;
    const ca = await makeRootCa();
    await registeredCa(api, ca, { jitp: { description: 'storm', tags: ['storm'], product_name: 'storm', cohort_prn: cohort.prn } });
    const target = { deviceUrl: `https://127.0.0.1:${devicePort}`, deviceServerCaPem: caPem };
    const devices: Api[] = [];
    for (let i = 0; i < STORM_DEVICES; i++) devices.push(deviceApi(target, await makeLeafCertificate(ca, `storm-${i}`), { retryShed: false }));

    // The admin API while nothing happens, then during the storm, timed from a thread of its own.
    const adminUrl = `${server.url}/products?limit=10`;
    const quietProbe = adminProbeThread(adminUrl, key, 25);
    await new Promise((r) => setTimeout(r, 3_000));
    const quiet = await quietProbe.stop();

    let shed = 0;
    let served = 0;
    const started = Date.now();
    const storm = Promise.all(
      devices.map(async (device) => {
        for (;;) {
          const answer = await device('GET', '/update').catch(() => null);
          if (answer?.status === 200) {
            served++;
            return;
          }
          {
            shed++;
            // A real device backs off with jitter before it tries again.
            await new Promise((r) => setTimeout(r, 300 + Math.random() * 1500));
          }
        }
      }),
    );
    const during = adminProbeThread(adminUrl, key, 25);
    await storm;
    const admin = await during.stop();
    const stormSeconds = (Date.now() - started) / 1000;

    console.info(
      `reconnect storm (${database.url ? 'PostgreSQL' : 'PGlite'}): ${STORM_DEVICES} devices served in ${stormSeconds.toFixed(1)} s, ${shed} attempts shed; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ` +
        `admin p50/p99 ${p(admin.latencies, 0.5).toFixed(0)}/${p(admin.latencies, 0.99).toFixed(0)} ms during (quiet ${p(quiet.latencies, 0.5).toFixed(0)}/${p(quiet.latencies, 0.99).toFixed(0)} ms), ${admin.latencies.length} calls`,
    );
    expect(served).toBe(STORM_DEVICES);
    expect(shed, 'more arrive at once than may be in flight: first attempts are shed').toBeGreaterThan(0);
    const listed = [];
    let page: string | null = null;
    do {
      const res: { body: any } = await api('GET', `/devices?limit=100${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      listed.push(...res.body.devices);
      page = res.body.next_page;
    } while (page);
    expect(new Set(listed.map((d: { identifier: string }) => d.identifier)).size).toBe(STORM_DEVICES);
    expect(listed).toHaveLength(STORM_DEVICES);
    expect(admin.failures, 'admin calls failed during the storm').toBe(0);
    // It kept answering all along: at least one call every 5 s of the storm on average (the load
    // average 37 run answered 28 in 74 s), and its p99 under the bound (the figures are printed;
    // the ratio to the quiet baseline is the benchmark's, bench/storm.ts).
    expect(admin.latencies.length).toBeGreaterThanOrEqual(Math.floor(stormSeconds / 5));
    expect(p(admin.latencies, 0.99)).toBeLessThan(ADMIN_P99_BOUND_MS);
    await server.kill('SIGTERM');
  }, 300_000);
});
