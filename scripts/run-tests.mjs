// `npm test`: the architecture rules and the typecheck first, then every package's suite in two
// lanes that run at once. The server suite keeps both cores busy with PGlite; the daemon, site
// and console suites mostly wait on processes and a browser, one file at a time, so running the
// lanes side by side uses the time one of them leaves idle. The lanes are balanced by the times
// CI measured (docs/decisions/019).
//
// With CANOPY_TEST_POSTGRES_URL set (CI does), the PostgreSQL suites join the lanes: the server
// suite again, and the daemon's fleet-simulator scenarios and cluster failover (then run only there).
import { spawn } from 'node:child_process';
import readline from 'node:readline';

const postgres = process.env.CANOPY_TEST_POSTGRES_URL;
const onPostgres = { DATABASE_URL: postgres };

/** A suite: its name in the output, the command, and what it adds to the environment. */
const suite = (name, args, env = {}, cwd = undefined) => ({ name, args, env, cwd });

const prelude = [suite('architecture', ['run', 'check:architecture']), suite('typecheck', ['run', 'typecheck'])];
const lanes = [
  [
    suite('server', ['run', 'test:server']),
    suite('sdk', ['run', 'test', '-w', '@canopy/sdk']),
    suite('cli', ['run', 'test', '-w', '@canopy/cli']),
    suite('console', ['run', 'test:console']),
    ...(postgres ? [suite('server on PostgreSQL', ['run', 'test:server'], onPostgres)] : []),
  ],
  [
    // With PostgreSQL at hand the fleet-simulator scenarios run once, there (packages/daemon/vitest.config.ts).
    suite('daemon', ['run', 'test:daemon'], postgres ? { CANOPY_DAEMON_SCENARIOS: 'skip' } : {}),
    suite('site', ['run', 'test:site']),
    ...(postgres
      ? [suite('daemon scenarios on PostgreSQL', ['exec', '--', 'vitest', 'run'], { ...onPostgres, CANOPY_DAEMON_SCENARIOS: 'only' }, 'packages/daemon')]
      : []),
  ],
];

const results = [];

function run({ name, args, env, cwd }) {
  const started = Date.now();
  console.log(`[${name}] --- start: npm ${args.join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn('npm', args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => console.log(`[${name}] ${line}`));
    }
    child.on('close', (code, signal) => {
      const seconds = Math.round((Date.now() - started) / 1000);
      const passed = code === 0;
      console.log(`[${name}] --- ${passed ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`} in ${seconds} s`);
      results.push({ name, passed, seconds });
      resolve(passed);
    });
  });
}

async function runLane(suites) {
  for (const each of suites) await run(each);
}

for (const each of prelude) {
  if (!(await run(each))) process.exit(1);
}
await Promise.all(lanes.map(runLane));

console.log('\n--- suites');
for (const { name, passed, seconds } of results) console.log(`${passed ? 'pass' : 'FAIL'}  ${String(seconds).padStart(5)} s  ${name}`);
process.exit(results.every((r) => r.passed) ? 0 : 1);
