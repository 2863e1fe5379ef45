/**
 * Before/after for a server change: two or more server bundles against ONE seeded database, their
 * loads alternated round after round. This 2-core machine's speed drifts by a third from one
 * minute to the next, so runs made minutes apart cannot tell a 10% change; alternated loads can.
 * Before: `npm run bundle -w @canopy/server`, then copy packages/server/dist to dist-before.
 *
 * Env: BENCH_BUNDLES (`current` bundles the working tree; other names are directories under
 * packages/server), BENCH_LOAD (handshakes | keep-alive | admin-get | admin-list: a device's
 * GET /devices/{prn} or the first page of GET /devices), BENCH_CONNECTIONS (64), BENCH_ROUNDS (4),
 * BENCH_SECONDS (10), BENCH_HISTORY=<n> (n past events, and a checkpoint before each round: a
 * fresh database's small tables hide what a table's size costs its writes).
 */
import { startCanopy, type CanopyProcess } from './lib/canopy';
import { machineIdleClock, serverCpuClock } from './lib/cpu-time';
import { makeDeviceCa, makeDevices } from './lib/device-certificates';
import { enrollFleet } from './lib/fleet-enrollment';
import { formatHandshakes, handshakeLoad } from './lib/handshake-load';
import { mtlsLoad, type MtlsClient } from './lib/mtls-load';
import { load } from './lib/load';
import { walClock, withClient, withDatabase } from './lib/postgres';
import { WARM_UP_SECONDS } from './lib/warm-up';

const BUNDLES = (process.env.BENCH_BUNDLES ?? 'current').split(',').map((name) => name.trim());
const LOAD = process.env.BENCH_LOAD ?? 'handshakes';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** As device-api.ts measures them. */
const DEVICES = 10_000;
const CONNECTIONS = { handshakes: 256, 'keep-alive': Number(process.env.BENCH_CONNECTIONS ?? 64), 'admin-get': 64, 'admin-list': 64 }[LOAD];
if (!CONNECTIONS) throw new Error(`BENCH_LOAD is handshakes, keep-alive, admin-get or admin-list, not ${LOAD}`);
const ADMIN_LOAD = LOAD === 'admin-get' || LOAD === 'admin-list';
const HEADERS = { 'canopy-release-version': '1.0.0' };
const HISTORY = Number(process.env.BENCH_HISTORY ?? 0);

/** Runs `text` on its own connection. */
async function run(databaseUrl: string, text: string): Promise<void> {
  await withClient(databaseUrl, (client) => client.query(text));
}

/** HISTORY past update-check events of the enrolled fleet's organization, a day old and older. */
async function addHistory(databaseUrl: string): Promise<void> {
  const started = Date.now();
  await run(
    databaseUrl,
    `with fleet as (select organization_id, array_agg(id) as ids from devices group by organization_id)
     insert into events (id, organization_id, type, subtype, actor_prn, resource_prn, data, inserted_at)
     select gen_random_uuid(), fleet.organization_id, 'device', 'checked_for_release', p.prn, p.prn, '{"status": "no_update"}'::jsonb,
       now() - interval '1 day' - n * interval '10 ms'
     from fleet, generate_series(1, ${HISTORY}) as n,
       lateral (select 'prn:1:' || fleet.organization_id || ':device:' || fleet.ids[1 + n % cardinality(fleet.ids)] as prn) as p`,
  );
  await run(databaseUrl, 'vacuum analyze events');
  console.log(`added ${HISTORY} past events in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** Admin API paths of up to 2,000 enrolled devices, in random order. */
async function enrolledDevicePaths(databaseUrl: string): Promise<string[]> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query(`select organization_id, id from devices order by random() limit 2000`);
    return rows.map((row: { organization_id: string; id: string }) => `/devices/prn:1:${row.organization_id}:device:${row.id}`);
  });
}

interface Target {
  url: string;
  ca: string;
  clients: MtlsClient[];
  /** admin-get: the device paths to read. */
  devicePaths: string[];
}

/** The admin API's GET /devices/{prn}, with the server's and database's CPU per request. */
async function measureAdminRead(name: string, canopy: CanopyProcess, target: Target, databaseUrl: string, seconds: number): Promise<string> {
  const cpu = await serverCpuClock(canopy.child.process.pid, databaseUrl);
  const paths = LOAD === 'admin-list' ? ['/devices'] : target.devicePaths;
  const measured = await load({ url: canopy.url, connections: CONNECTIONS, headers: { authorization: `Bearer ${canopy.apiKey}` }, paths, seconds });
  const { serverMs, databaseMs } = await cpu.stop(measured.requests);
  return `${name.padEnd(28)} ${measured.requestsPerSecond.toFixed(0).padStart(7)} /s  p50/p99 ${measured.p50}/${measured.p99} ms  CPU ms per read: server ${serverMs!.toFixed(3)}, PostgreSQL ${databaseMs!.toFixed(3)}`;
}

/** One measured load on `canopy`, as one line. */
async function measure(name: string, canopy: CanopyProcess, target: Target, databaseUrl: string, seconds: number): Promise<string> {
  if (ADMIN_LOAD) return measureAdminRead(name, canopy, target, databaseUrl, seconds);
  if (LOAD === 'handshakes') {
    const measured = await handshakeLoad({ ...target, seconds, concurrency: 16, threads: 2, headers: HEADERS, serverPid: canopy.child.process.pid, databaseUrl });
    return formatHandshakes(name, measured);
  }
  const cpu = await serverCpuClock(canopy.child.process.pid, databaseUrl);
  const wal = await walClock(databaseUrl);
  const idle = machineIdleClock();
  const measured = await mtlsLoad({ ...target, seconds, headers: HEADERS });
  const idleShare = idle.stop();
  const walUse = await wal.stop();
  const requests = Math.max(1, measured.requestsPerSecond * seconds);
  const { serverMs, databaseMs } = await cpu.stop(requests);
  const problems = measured.non2xx || measured.errors ? `  !! non-2xx ${measured.non2xx}, errors ${measured.errors}` : '';
  return (
    `${name.padEnd(28)} ${measured.requestsPerSecond.toFixed(0).padStart(7)} /s  p50/p99 ${measured.p50}/${measured.p99} ms` +
    `  CPU ms per check: server ${serverMs!.toFixed(3)}, PostgreSQL ${databaseMs!.toFixed(3)}  machine idle ${(idleShare * 100).toFixed(0)}%` +
    `  WAL per check: ${(walUse.bytes / requests).toFixed(0)} bytes, ${(walUse.fullPageImages / requests).toFixed(2)} full pages, ${(walUse.syncs / requests).toFixed(3)} flushes${problems}`
  );
}

await withDatabase(async (databaseUrl) => {
  const deviceCa = await makeDeviceCa();
  const devices = await makeDevices(deviceCa, DEVICES, CONNECTIONS);
  const clients = devices.slice(-CONNECTIONS).map((d) => ({ certPem: d.certPem, keyPem: d.keyPem }));
  const servers: { name: string; canopy: CanopyProcess }[] = [];
  try {
    for (const name of BUNDLES) {
      // Shedding far above what one machine can do, as in device-api.ts.
      const env = { CANOPY_DEVICE_HANDSHAKE_RATE: '1000000', CANOPY_DEVICE_HANDSHAKE_BURST: '1000000' };
      servers.push({ name, canopy: await startCanopy(databaseUrl, env, name === 'current' ? undefined : name) });
    }
    await enrollFleet(servers[0].canopy, databaseUrl, deviceCa, devices);
    if (HISTORY > 0) await addHistory(databaseUrl);
    const devicePaths = LOAD === 'admin-get' ? await enrolledDevicePaths(databaseUrl) : [];
    const target = (canopy: CanopyProcess) => ({ url: `https://127.0.0.1:${canopy.devicePort}/update`, ca: canopy.deviceServerCaPem(), clients, devicePaths });
    for (const { name, canopy } of servers) await measure(name, canopy, target(canopy), databaseUrl, WARM_UP_SECONDS);
    console.log(`${LOAD}: ${CONNECTIONS} devices of ${DEVICES}, ${ROUNDS} rounds of ${SECONDS} s`);
    for (let round = 1; round <= ROUNDS; round++) {
      // Each round starts with the next bundle, so that no bundle is always the one measured first.
      const shift = (round - 1) % servers.length;
      for (const { name, canopy } of [...servers.slice(shift), ...servers.slice(0, shift)]) {
        if (HISTORY > 0) await run(databaseUrl, 'checkpoint');
        console.log(await measure(`round ${round} ${name}`, canopy, target(canopy), databaseUrl, SECONDS));
      }
    }
  } finally {
    await Promise.all(servers.map(({ canopy }) => canopy.child.stop()));
  }
});
