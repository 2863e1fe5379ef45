/**
 * Issue 2's benchmark: GET /devices?limit=100 and GET /devices/{prn} with 100,000 devices on
 * PostgreSQL, 64 connections, beside a Fastify hello-world measured in the same run.
 * Targets: list >= 25% and get >= 40% of hello-world, p99 < 20 ms, server RSS < 300 MB.
 * BENCH_SKIP_LIST=1 measures GET /devices/{prn} alone (with BENCH_NODE_ARGS='--cpu-prof ...',
 * a profile of that load only).
 */
import pg from 'pg';
import { helloWorldBaseline } from './lib/baseline';
import { startCanopy } from './lib/canopy';
import { loadAverage, serverCpuClock } from './lib/cpu-time';
import { formatRatio, load, type LoadOptions, type LoadResult } from './lib/load';
import { withDatabase } from './lib/postgres';
import { WARM_UP_SECONDS } from './lib/warm-up';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 64;
const DISTINCT_PAGES = 500;
const SKIP_LIST = process.env.BENCH_SKIP_LIST === '1';

async function seed(databaseUrl: string): Promise<{ organizationId: string; deviceIds: string[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: [org] } = await client.query('select id from organizations limit 1');
    const { rows: [product] } = await client.query(
      `insert into products (id, organization_id, name) values (gen_random_uuid(), $1, 'bench') returning id`,
      [org.id],
    );
    await client.query(
      `insert into devices (id, organization_id, product_id, identifier, tags, inserted_at, updated_at)
       select gen_random_uuid(), $1, $2, 'device-' || g, array['bench'], now() - g * interval '1 millisecond', now()
       from generate_series(1, $3::int) g`,
      [org.id, product.id, DEVICES],
    );
    // Vacuumed too, as in a fleet's steady state: not the autovacuum of a fresh 100,000-row insert during the timed run.
    await client.query('vacuum analyze devices');
    const { rows } = await client.query('select id from devices order by random() limit 2000');
    return { organizationId: org.id, deviceIds: rows.map((r) => r.id) };
  } finally {
    await client.end();
  }
}

/** Paths of the first `count` pages of 100 devices, followed by their next_page cursors. */
async function pagesOf(url: string, headers: Record<string, string>, count: number): Promise<string[]> {
  const paths = ['/devices?limit=100'];
  while (paths.length < count) {
    const { next_page: next } = (await (await fetch(`${url}${paths[paths.length - 1]}`, { headers })).json()) as { next_page: string | null };
    if (next === null) break;
    paths.push(`/devices?limit=100&page=${next}`);
  }
  return paths;
}

/**
 * The load, with the CPU the server process and its database backends spent per response: on a
 * shared 2-core machine rates move with the neighbours, CPU per request much less.
 */
async function measured(databaseUrl: string, serverPid: number, options: LoadOptions): Promise<LoadResult & { cpu: string }> {
  const clock = await serverCpuClock(serverPid, databaseUrl);
  const result = await load(options);
  const { serverMs, databaseMs } = await clock.stop(result.requests);
  return {
    ...result,
    cpu:
      `CPU per request: server ${serverMs!.toFixed(3)} ms, database ${databaseMs!.toFixed(3)} ms;` +
      ` p50 ${result.p50} ms; the load generator's own event-loop delay p99 ${result.generatorDelayP99.toFixed(1)} ms`,
  };
}

await withDatabase(async (databaseUrl) => {
  const canopy = await startCanopy(databaseUrl);
  try {
    const { organizationId, deviceIds } = await seed(databaseUrl);
    const headers = { authorization: `Bearer ${canopy.apiKey}` };
    const common = { url: canopy.url, connections: CONNECTIONS, headers };
    const serverPid = canopy.child.process.pid!;
    // Each load starts after a warm-up of its own paths (JIT, the rows it reads in cache),
    // and is followed by its own hello-world baseline: this machine's speed drifts by a third
    // within minutes, so a ratio compares two loads measured next to each other.
    const warmedUp = async (paths: string[]) => {
      await load({ ...common, paths, seconds: WARM_UP_SECONDS });
      const result = await measured(databaseUrl, serverPid, { ...common, paths, seconds: SECONDS });
      return { ...result, baseline: await helloWorldBaseline({ connections: CONNECTIONS, seconds: SECONDS }) };
    };
    const listLoads = async () => {
      const list = await warmedUp(['/devices?limit=100']);
      const pageBytes = Buffer.byteLength(await (await fetch(`${canopy.url}/devices?limit=100`, { headers })).text());
      // The same route over many different pages: requests of one page in one event-loop turn
      // share its query (read-path/owned-json.ts), so this shows what a page costs when nothing is shared.
      const pagePaths = await pagesOf(canopy.url, headers, DISTINCT_PAGES);
      return { list, pageBytes, distinct: await warmedUp(pagePaths) };
    };
    const lists = SKIP_LIST ? null : await listLoads();
    const get = await warmedUp(deviceIds.map((id) => `/devices/prn:1:${organizationId}:device:${id}`));
    console.log(`\nGET /devices with ${DEVICES} devices on PostgreSQL, ${CONNECTIONS} connections, ${SECONDS} s each`);
    if (lists) {
      const { list, distinct } = lists;
      console.log(formatRatio('GET /devices?limit=100', list, list.baseline, 0.25), `(p99 target < 20 ms)`);
      console.log(`  ${list.cpu}`);
      console.log(formatRatio(`  ${DISTINCT_PAGES} different pages`, distinct, distinct.baseline, 0.25));
      console.log(`  ${distinct.cpu}`);
    }
    console.log(formatRatio('GET /devices/{prn}', get, get.baseline, 0.4), `(p99 target < 20 ms)`);
    console.log(`  ${get.cpu}`);
    // What the list's targets mean on this machine: the same load against the cheapest server of
    // a page-sized answer, a bare Fastify app sending one pre-encoded body (no database, no work
    // per request). Its p99 is what this machine and the load generator alone make of 64
    // connections reading answers that large, whatever the server does.
    if (lists) {
      const { list, pageBytes } = lists;
      const floor = await helloWorldBaseline({ connections: CONNECTIONS, seconds: SECONDS }, pageBytes);
      console.log(
        `  a page is ${(pageBytes / 1024).toFixed(0)} KB; a Fastify server sending a pre-encoded body that size: ${floor.requestsPerSecond.toFixed(0)} req/s, p50 ${floor.p50} ms, p99 ${floor.p99} ms` +
          `, the load generator's event-loop delay p99 ${floor.generatorDelayP99.toFixed(1)} ms` +
          ` (${((floor.requestsPerSecond / list.baseline.requestsPerSecond) * 100).toFixed(1)}% of the list's hello-world; the list is ${((list.requestsPerSecond / floor.requestsPerSecond) * 100).toFixed(1)}% of it)`,
      );
    }
    console.log(`load average: ${loadAverage()}`);
    console.log(`server RSS now ${canopy.child.rssMb().toFixed(0)} MB, peak ${canopy.child.peakRssMb().toFixed(0)} MB (target < 300 MB)`);
  } finally {
    await canopy.child.stop();
  }
});
