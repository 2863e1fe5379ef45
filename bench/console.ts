/**
 * Issue 28's benchmark of the web console, in one run:
 *
 * 1. Initial JavaScript gzip of the console beside a bare Vite React template built with the
 *    same Vite and React (lib/console-initial-js.ts). Target: at most 3x.
 * 2. With BENCH_DEVICES (default 100,000) devices on PostgreSQL (lib/seed-fleet.ts), in Debian's
 *    Chromium (lib/console-fleet-timings.ts): the first rows of the fleet view after Sign in,
 *    the next page, and a filtered page, each beside the admin API call it waits on (GET
 *    /devices?limit=100 with the same cursor or search, from this process); the next page beside
 *    the first rows too.
 * 3. Lighthouse performance (its default mobile settings, simulated throttling) of the sign-in
 *    page and of the fleet view signed in, median of BENCH_LIGHTHOUSE_RUNS (default 3), beside the
 *    bare template of part 1 served gzipped by the docs site's static server: the 4x CPU slowdown
 *    Lighthouse simulates multiplies what it measures here, so on a loaded machine every page
 *    scores low and the template's score says how much of that is the machine. Target: at least 95.
 *
 * Run: `npm run bench -w @canopy/bench -- console`. The load average is printed beside each part:
 * this machine is shared, and every figure here moves with its neighbours' work.
 */
import { startCanopy } from './lib/canopy';
import { timeFleetView } from './lib/console-fleet-timings';
import { buildConsoleAndTemplate, STOCK_DIST } from './lib/console-initial-js';
import { loadAverage } from './lib/cpu-time';
import { medianLighthouse, staticBuildLighthouse, type LighthouseRun } from './lib/lighthouse';
import { withDatabase } from './lib/postgres';
import { seedFleet } from './lib/seed-fleet';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LIGHTHOUSE_RUNS = Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 3);
const TARGET_RATIO = 3;
const TARGET_LIGHTHOUSE = 95;
const FILTER = "tags:'east'";
// The console's own sessionStorage key (packages/console/src/api/session.ts).
const SESSION_KEY = 'canopy.console.session';

const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const ms = (values: number[]) => `${median(values).toFixed(0)} ms (runs: ${values.map((v) => v.toFixed(0)).join(', ')})`;

/** Median latency of GET `path` over `rounds` sequential requests after two warm-ups. */
async function apiLatency(url: string, apiKey: string, rounds: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds + 2; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    await res.text();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    if (i >= 2) times.push(performance.now() - started);
  }
  return median(times);
}

/** The session the console keeps after a key sign-in (SignIn.tsx's sessionFor), for Lighthouse. */
async function consoleSession(url: string, apiKey: string): Promise<string> {
  const me = (await (await fetch(`${url}/users/me`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { data: { role: string; organization_prn: string } };
  return JSON.stringify({ apiKey, role: me.data.role, name: 'API key', organizationPrn: me.data.organization_prn });
}

function printLighthouse(screen: string, result: { median: LighthouseRun; scores: number[]; benchmarkIndexes: number[]; failures: string[] }) {
  const run = result.median;
  console.log(`Lighthouse performance, ${screen}: ${run.performance} (runs: ${result.scores.join(', ')}; target at least ${TARGET_LIGHTHOUSE}: ${run.performance >= TARGET_LIGHTHOUSE ? 'MET' : 'NOT MET'})`);
  console.log(`  median run: ${Object.entries(run.metrics).map(([id, value]) => `${id} ${value}`).join(', ')}; benchmarkIndex of the runs ${result.benchmarkIndexes.join(', ')}`);
  if (run.opportunities.length > 0) console.log(`  opportunities: ${run.opportunities.join('; ')}`);
  if (result.failures.length > 0) console.log(`  runs that failed (not in the median): ${result.failures.join('; ')}`);
}

const { ours, stock } = await buildConsoleAndTemplate();
const ratio = ours.bytes / stock.bytes;
console.log(`\n1. Initial JavaScript (load average ${loadAverage()})`);
console.log(`console initial JS:       ${kb(ours.bytes)} gzip (${kb(ours.raw)} raw) in ${ours.files.length} file(s)`);
console.log(`bare Vite React template: ${kb(stock.bytes)} gzip (${kb(stock.raw)} raw)`);
console.log(`ratio: ${ratio.toFixed(2)}x (target at most ${TARGET_RATIO}x) ${ratio <= TARGET_RATIO ? 'MET' : 'NOT MET'}`);

await withDatabase(async (databaseUrl) => {
  const canopy = await startCanopy(databaseUrl);
  try {
    const seeded = performance.now();
    await seedFleet(databaseUrl, DEVICES);
    console.error(`seeded ${DEVICES} devices in ${((performance.now() - seeded) / 1000).toFixed(0)} s`);
    const consoleUrl = `${canopy.url}/console/`;

    const before = loadAverage();
    const times = await timeFleetView(consoleUrl, canopy.apiKey, FILTER, ROUNDS);
    const first = (await (await fetch(`${canopy.url}/devices?limit=100`, { headers: { authorization: `Bearer ${canopy.apiKey}` } })).json()) as { next_page: string };
    const api = {
      first: await apiLatency(`${canopy.url}/devices?limit=100`, canopy.apiKey, 20),
      next: await apiLatency(`${canopy.url}/devices?limit=100&page=${encodeURIComponent(first.next_page)}`, canopy.apiKey, 20),
      filtered: await apiLatency(`${canopy.url}/devices?limit=100&search=${encodeURIComponent(FILTER)}`, canopy.apiKey, 20),
    };
    console.log(`\n2. Fleet view with ${DEVICES} devices on PostgreSQL, Chromium, median of ${ROUNDS} first visits (load average before ${before}, after ${loadAverage()})`);
    console.log(`first rows after Sign in: ${ms(times.firstRows)}; GET /devices?limit=100 alone ${api.first.toFixed(1)} ms`);
    console.log(`next page:                ${ms(times.nextPage)}; its GET alone ${api.next.toFixed(1)} ms; ${(median(times.nextPage) / median(times.firstRows)).toFixed(2)}x the first rows`);
    console.log(`filtered page (${FILTER}): ${ms(times.filteredPage)}; its GET alone ${api.filtered.toFixed(1)} ms; ${(median(times.filteredPage) / median(times.firstRows)).toFixed(2)}x the first rows`);

    console.log(`\n3. Lighthouse, median of ${LIGHTHOUSE_RUNS} (load average before ${loadAverage()})`);
    printLighthouse('bare Vite React template (baseline)', await staticBuildLighthouse(STOCK_DIST, LIGHTHOUSE_RUNS));
    printLighthouse('sign-in page', await medianLighthouse(consoleUrl, LIGHTHOUSE_RUNS));
    const session = await consoleSession(canopy.url, canopy.apiKey);
    printLighthouse(`fleet view of ${DEVICES} devices, signed in`, await medianLighthouse(`${consoleUrl}fleet`, LIGHTHOUSE_RUNS, { sessionStorage: { [SESSION_KEY]: session } }));
    console.log(`(load average after ${loadAverage()})`);
  } finally {
    await canopy.child.stop();
  }
});
