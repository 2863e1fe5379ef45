/**
 * Starts the real Canopy server as a child process for a benchmark, on PostgreSQL, the way
 * `npm start` runs it: the bundle of packages/server/scripts/bundle.mjs, with plain node and the
 * node options of `npm start`'s command.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { answers, freePort, ROOT, startNode, type Child } from './processes';

let bundled = false;

/** Bundles the server from the current sources, once per benchmark process. */
function bundleServer() {
  if (bundled) return;
  execFileSync(process.execPath, ['packages/server/scripts/bundle.mjs'], { cwd: ROOT, stdio: 'inherit' });
  bundled = true;
}

const SERVER = 'packages/server/dist/main.mjs';

/** The node options `npm start` gives the server (root package.json), so the benchmark runs it alike. */
function startNodeOptions(): string[] {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const command = new RegExp(`node ((?:--\\S+ )*)${SERVER.replaceAll('.', '\\.')}`).exec(scripts.start);
  if (!command) throw new Error(`npm start no longer runs "node [options] ${SERVER}": ${scripts.start}`);
  // BENCH_SERVER_NODE_OPTIONS adds options for a look inside, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  return [...command[1].split(' '), ...(process.env.BENCH_SERVER_NODE_OPTIONS ?? '').split(' ')].filter(Boolean);
}

export interface CanopyProcess {
  child: Child;
  url: string;
  apiKey: string;
  devicePort: number;
  /** PEM of the CA the device API's generated server certificate chains to: what devices trust. */
  deviceServerCaPem(): string;
}

/**
 * `bundle`: a directory under packages/server holding an earlier bundle (see compare-handshakes.ts)
 * to run instead of bundling the current sources. A second server on a database another one
 * bootstrapped answers its admin API to the first one's key, not its own.
 */
export async function startCanopy(databaseUrl: string, env: Record<string, string> = {}, bundle?: string): Promise<CanopyProcess> {
  const adminPort = await freePort();
  const devicePort = await freePort();
  const apiKey = `cnpy_bench_${randomBytes(16).toString('hex')}`;
  const url = `http://127.0.0.1:${adminPort}`;
  const dataDir = `/tmp/canopy-bench-${adminPort}`;
  if (!bundle) bundleServer();
  const child = await startNode(
    bundle ? `packages/server/${bundle}/main.mjs` : SERVER,
    {
      DATABASE_URL: databaseUrl,
      CANOPY_ADMIN_PORT: String(adminPort),
      CANOPY_DEVICE_PORT: String(devicePort),
      CANOPY_BOOTSTRAP_API_KEY: apiKey,
      CANOPY_DATA_DIR: dataDir,
      CANOPY_LOG_LEVEL: 'warn',
      ...env,
    },
    answers(`${url}/healthz`),
    undefined,
    startNodeOptions(),
  );
  return { child, url, apiKey, devicePort, deviceServerCaPem: () => fs.readFileSync(path.join(dataDir, 'device-api/ca.pem'), 'utf8') };
}
