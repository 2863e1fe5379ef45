/** Starts the real Canopy server as a child process for a benchmark, on PostgreSQL. */
import { randomBytes } from 'node:crypto';
import { answers, freePort, startNode, type Child } from './processes';

export interface CanopyProcess {
  child: Child;
  url: string;
  apiKey: string;
  devicePort: number;
}

export async function startCanopy(databaseUrl: string, env: Record<string, string> = {}): Promise<CanopyProcess> {
  const adminPort = await freePort();
  const devicePort = await freePort();
  const apiKey = `cnpy_bench_${randomBytes(16).toString('hex')}`;
  const url = `http://127.0.0.1:${adminPort}`;
  const child = await startNode(
    'packages/server/src/main.ts',
    {
      DATABASE_URL: databaseUrl,
      CANOPY_ADMIN_PORT: String(adminPort),
      CANOPY_DEVICE_PORT: String(devicePort),
      CANOPY_BOOTSTRAP_API_KEY: apiKey,
      CANOPY_DATA_DIR: `/tmp/canopy-bench-${adminPort}`,
      CANOPY_LOG_LEVEL: 'warn',
      ...env,
    },
    answers(`${url}/healthz`),
  );
  return { child, url, apiKey, devicePort };
}
