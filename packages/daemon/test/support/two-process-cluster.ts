/**
 * Two Canopy server processes on one PostgreSQL database (made for the run and dropped after it)
 * and one S3-protocol store (s3rver), behind round-robin TCP proxies (round-robin-proxy.ts: the
 * device API's mutual TLS passes through untouched): the cluster the fleet-simulator tests of
 * several processes run against (cluster-failover.ts, rollout-controls-at-scale.test.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startTestS3 } from '../../../server/test/support/s3';
import { freePort, spawnServer, type ServerProcess } from '../../../server/test/support/server-process';
import { adminApi, type AdminApi } from '../../src/simulator/fleet-setup';
import { simulatorWorkDir } from '../../src/simulator/simulate';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy';

export interface Cluster {
  servers: ServerProcess[];
  adminProxy: RoundRobinProxy;
  deviceProxy: RoundRobinProxy;
  adminUrl: string;
  deviceUrl: string;
  apiKey: string;
  api: AdminApi;
  /** The device API's CA, which every process presents. */
  serverCaPem: string;
  /** A simulator work dir for the run. */
  workDir: string;
}

/** Starts the cluster; what it starts is stopped by `cleanups` (run them in reverse). `env` adds to both processes' settings. */
export async function startCluster(databaseUrl: string, cleanups: (() => Promise<unknown> | unknown)[], env: Record<string, string> = {}): Promise<Cluster> {
  const s3 = await startTestS3();
  cleanups.push(() => s3.close());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-cluster-'));
  const workDir = simulatorWorkDir(os.tmpdir());
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }), () => fs.rmSync(workDir, { recursive: true, force: true }));
  const apiKey = `cnpy_cluster_${'c'.repeat(32)}`;
  // One after the other on one data dir: the second reuses the first's device API certificate
  // (every process of a cluster presents the same one to devices).
  const servers: ServerProcess[] = [];
  const adminPorts: number[] = [];
  const devicePorts: number[] = [];
  for (let i = 0; i < 2; i++) {
    const [adminPort, devicePort] = [await freePort(), await freePort()];
    const server = await spawnServer(
      {
        DATABASE_URL: databaseUrl,
        CANOPY_DATA_DIR: dataDir,
        CANOPY_BOOTSTRAP_API_KEY: apiKey,
        CANOPY_SECRET_KEY: 'ce'.repeat(32),
        CANOPY_LOG_LEVEL: 'warn',
        CANOPY_DEVICE_PORT: String(devicePort),
        CANOPY_S3_BUCKET: s3.config.bucket,
        CANOPY_S3_REGION: s3.config.region,
        CANOPY_S3_ENDPOINT: s3.config.endpoint!,
        CANOPY_S3_ACCESS_KEY_ID: s3.config.accessKeyId!,
        CANOPY_S3_SECRET_ACCESS_KEY: s3.config.secretAccessKey!,
        CANOPY_S3_FORCE_PATH_STYLE: '1',
        // A device beyond a concurrency cap comes back after about a second, not a minute.
        CANOPY_CAP_RETRY_SECONDS: '1',
        ...env,
      },
      adminPort,
      300_000,
    );
    servers.push(server);
    cleanups.push(() => server.kill('SIGKILL'));
    adminPorts.push(adminPort);
    devicePorts.push(devicePort);
  }
  const adminProxy = await startRoundRobinProxy(adminPorts);
  const deviceProxy = await startRoundRobinProxy(devicePorts);
  cleanups.push(() => adminProxy.close(), () => deviceProxy.close());
  const adminUrl = adminProxy.url('http');
  return {
    servers,
    adminProxy,
    deviceProxy,
    adminUrl,
    deviceUrl: deviceProxy.url('https'),
    apiKey,
    api: adminApi(adminUrl, apiKey),
    serverCaPem: fs.readFileSync(path.join(dataDir, 'device-api', 'ca.pem'), 'utf8'),
    workDir,
  };
}

/** Runs `run` on a database of its own on the PostgreSQL server `serverUrl`, dropped after. */
export async function withClusterDatabase<T>(serverUrl: string, run: (url: string) => Promise<T>): Promise<T> {
  const name = `canopy_cluster_${Math.random().toString(16).slice(2, 10)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    return await run(url.toString());
  } finally {
    await admin(`drop database if exists ${name} with (force)`);
  }
}
