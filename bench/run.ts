/** `npm run bench`: every benchmark in turn (each prints its own figures and baselines). */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
const BENCHMARKS = ['api-devices.ts', 'device-counts.ts', 'binaries.ts', 'releases.ts', 'rollouts.ts', 'webhooks.ts', 'site.ts', 'device-api.ts', 'daemon.ts', 'fleet.ts', 'console.ts', 'tunnels.ts', 'tuf.ts'];

for (const file of BENCHMARKS.filter((f) => !only || f.includes(only))) {
  console.log(`\n=== ${file}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, file)], { stdio: 'inherit', cwd: path.resolve(here, '..') });
  if (run.status !== 0) process.exitCode = 1;
}
