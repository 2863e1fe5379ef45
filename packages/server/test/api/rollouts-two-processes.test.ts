/**
 * Two server processes on one PostgreSQL receive the reports of one gated release at the same
 * time (each device reports through one of them, over real mutual TLS): the release is halted
 * exactly once, with one `release.halted` event (rollouts/halt.ts locks the release row before
 * it reads the counters). PostgreSQL only: PGlite is one process's embedded database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { deviceEnrollment, type EnrolledDevice } from '../support/device-json-client';
import type { DeviceTarget } from '../support/device-client';
import { createFleet } from '../support/fleet';
import { freePort, spawnServer, type ServerProcess } from '../support/server-process';
import type { Api } from '../support/server';

const API_KEY = `cnpy_test_${'k'.repeat(32)}`;
const DEVICES = 40;

function adminApi(url: string): Api {
  return async (method, urlPath, body) => {
    const response = await fetch(`${url}${urlPath}`, {
      method,
      headers: { authorization: `Bearer ${API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  };
}

describe.skipIf(!process.env.DATABASE_URL)('the health gate across two server processes', () => {
  let database: TestDatabase;
  let dataDir: string;
  const servers: ServerProcess[] = [];
  const targets: DeviceTarget[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-rollouts-'));
    // One after the other on one data dir: the second reuses the first's device API certificate.
    for (let i = 0; i < 2; i++) {
      const devicePort = await freePort();
      const env = {
        DATABASE_URL: database.url!,
        CANOPY_DATA_DIR: dataDir,
        CANOPY_BOOTSTRAP_API_KEY: API_KEY,
        CANOPY_SECRET_KEY: 'cd'.repeat(32),
        CANOPY_LOG_LEVEL: 'warn',
        CANOPY_DEVICE_PORT: String(devicePort),
      };
      servers.push(await spawnServer(env, await freePort()));
      targets.push({ deviceUrl: `https://127.0.0.1:${devicePort}`, deviceServerCaPem: fs.readFileSync(path.join(dataDir, 'device-api', 'ca.pem'), 'utf8') });
    }
  }, 300_000);
  afterAll(async () => {
    for (const server of servers) await server.kill('SIGKILL');
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('halts once when reports crossing the line arrive at both at once', { timeout: 300_000 }, async () => {
    const api = adminApi(servers[0].url);
    const fleet = await createFleet(api);
    const organizationId = fleet.productPrn.split(':')[2];
    const enroll = deviceEnrollment(targets[0]);
    const devices: EnrolledDevice[] = [];
    for (let i = 0; i < DEVICES; i += 10) devices.push(...(await Promise.all(Array.from({ length: 10 }, () => enroll.device({ api, organizationId })))));
    const productPrn = (await api('GET', `/devices/${devices[0].prn}`)).body.device.product_prn;
    const cohortPrn = (await api('POST', '/cohorts', { name: 'two', product_prn: productPrn })).body.cohort.prn;
    for (const device of devices) expect((await api('PATCH', `/devices/${device.prn}`, { cohort_prn: cohortPrn })).status).toBe(200);
    const bundle = await fleet.bundle();
    const base = { cohort_prn: cohortPrn, bundle_prn: bundle.prn, required: false, schedule_date: null };
    await api('POST', '/releases', { ...base, name: 'r1' });
    const gated = await api('POST', '/releases', { ...base, name: 'r2', halt_failure_ratio: 0.5, halt_min_reports: 10 });
    expect(gated.status, JSON.stringify(gated.body)).toBe(201);
    const releasePrn = gated.body.release.prn;

    // Every device fails at once, half through each process: from the 10th on, each report is past the line.
    const answers = await Promise.all(
      devices.map((device, i) =>
        device.via(targets[i % 2])('POST', '/update/reports', { status: 'failed', release_prn: releasePrn, bundle_prn: bundle.prn, reason: 'boom' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(devices.map(() => 201));

    const release = (await api('GET', `/releases/${releasePrn}`)).body.release;
    expect(release).toMatchObject({ disabled: true, halted_at: expect.any(String) });
    const events = (await api('GET', '/events?type=release&subtype=halted')).body.events;
    expect(events).toHaveLength(1);
    // The crossing report saw exactly the line: 10 finished, all failed.
    expect(events[0].data.data).toMatchObject({ release: releasePrn, failed: 10, installed: 0 });
    const rollout = (await adminApi(servers[1].url)('GET', `/releases/${releasePrn}/rollout`)).body.rollout;
    expect(rollout.reported.failed).toBe(DEVICES);
    expect(rollout.halted_at).toBe(release.halted_at);
  });
});
