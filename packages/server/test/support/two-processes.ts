/**
 * Two server processes on one fresh PostgreSQL database and one data dir (the second reuses the
 * first's device API certificate), for tests of what must hold across processes; and a cohort of
 * enrolled devices to run them with.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from './database';
import { deviceEnrollment, type EnrolledDevice } from './device-json-client';
import type { DeviceTarget } from './device-client';
import { createFleet, type Fleet } from './fleet';
import { freePort, spawnServer, type ServerProcess } from './server-process';
import type { Api } from './server';

export const TWO_PROCESSES_API_KEY = `cnpy_test_${'k'.repeat(32)}`;

export interface TwoProcesses {
  database: TestDatabase;
  servers: ServerProcess[];
  targets: DeviceTarget[];
  close(): Promise<void>;
}

/** Starts them one after the other: the first applies migrations and makes the device API's CA. */
export async function startTwoProcesses(prefix: string, env: Record<string, string> = {}): Promise<TwoProcesses> {
  const database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const servers: ServerProcess[] = [];
  const targets: DeviceTarget[] = [];
  for (let i = 0; i < 2; i++) {
    const devicePort = await freePort();
    servers.push(
      await spawnServer(
        {
          DATABASE_URL: database.url!,
          CANOPY_DATA_DIR: dataDir,
          CANOPY_BOOTSTRAP_API_KEY: TWO_PROCESSES_API_KEY,
          CANOPY_SECRET_KEY: 'cd'.repeat(32),
          CANOPY_LOG_LEVEL: 'warn',
          CANOPY_DEVICE_PORT: String(devicePort),
          ...env,
        },
        await freePort(),
      ),
    );
    targets.push({ deviceUrl: `https://127.0.0.1:${devicePort}`, deviceServerCaPem: fs.readFileSync(path.join(dataDir, 'device-api', 'ca.pem'), 'utf8') });
  }
  return {
    database,
    servers,
    targets,
    async close() {
      for (const server of servers) await server.kill('SIGKILL');
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The admin API of a server process, with the bootstrap key. */
export function processApi(url: string): Api {
  return async (method, urlPath, body) => {
    const response = await fetch(`${url}${urlPath}`, {
      method,
      headers: { authorization: `Bearer ${TWO_PROCESSES_API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  };
}

/** `count` devices enrolled through `target`, ten at a time, all in a new cohort `cohortName` of their product. */
export async function enrolledCohort(api: Api, target: DeviceTarget, count: number, cohortName: string): Promise<{ fleet: Fleet; devices: EnrolledDevice[]; cohortPrn: string }> {
  const fleet = await createFleet(api);
  const organizationId = fleet.productPrn.split(':')[2];
  const enroll = deviceEnrollment(target);
  const devices: EnrolledDevice[] = [];
  for (let i = 0; i < count; i += 10) devices.push(...(await Promise.all(Array.from({ length: Math.min(10, count - i) }, () => enroll.device({ api, organizationId })))));
  const productPrn = (await api('GET', `/devices/${devices[0].prn}`)).body.device.product_prn;
  const cohortPrn = (await api('POST', '/cohorts', { name: cohortName, product_prn: productPrn })).body.cohort.prn;
  for (const device of devices) {
    const moved = await api('PATCH', `/devices/${device.prn}`, { cohort_prn: cohortPrn });
    if (moved.status !== 200) throw new Error(`moving ${device.prn} into ${cohortName}: ${moved.status}`);
  }
  return { fleet, devices, cohortPrn };
}
