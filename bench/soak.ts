/**
 * The soak (issue 32): one server process on PostgreSQL under steady load for `--minutes`: virtual
 * devices (the simulator's set-up, the SDK's device client, real mutual TLS, JITP) each checking
 * in every BENCH_SOAK_POLL seconds, jittered by up to half, and admin traffic (a list, a device
 * update, a product created and renamed) every BENCH_SOAK_ADMIN_MS. Every `--every` seconds it
 * prints RSS and heap, event-loop delay (lib/loop-probe.mjs in the server), database size,
 * check-ins and admin calls per second and the admin p99. The line to read: RSS and database size
 * should level off (the events table grows with every check-in by design: its growth is printed).
 * Env and options: BENCH_SOAK_DEVICES (1,000), BENCH_SOAK_POLL (10), BENCH_SOAK_ADMIN_MS (200);
 * --minutes (30), --every (30).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startCanopy } from './lib/canopy';
import { loadAverage } from './lib/cpu-time';
import { withClient, withDatabase } from './lib/postgres';
import { ROOT } from './lib/processes';
import { checkIn, latencyProbe, percentile, simulatedFleet } from './lib/simulated-devices';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '30' }, every: { type: 'string', default: '30' } } });
const MINUTES = Number(values.minutes);
const EVERY_S = Number(values.every);
const DEVICES = Number(process.env.BENCH_SOAK_DEVICES ?? 1000);
const POLL_S = Number(process.env.BENCH_SOAK_POLL ?? 10);
const ADMIN_MS = Number(process.env.BENCH_SOAK_ADMIN_MS ?? 200);

const probeFile = path.join(os.tmpdir(), `canopy-soak-probe-${process.pid}.jsonl`);
fs.rmSync(probeFile, { force: true });
process.env.BENCH_NODE_ARGS = `${process.env.BENCH_NODE_ARGS ?? ''} --import ${path.join(ROOT, 'bench/lib/loop-probe.mjs')}`.trim();

function lastProbe(): Record<string, number> | null {
  const lines = fs.existsSync(probeFile) ? fs.readFileSync(probeFile, 'utf8').trim().split('\n') : [];
  return lines.length && lines[lines.length - 1] ? JSON.parse(lines[lines.length - 1]) : null;
}

/** The worst event-loop delay of the probe lines since `since`. */
function worstDelaySince(since: number): { p99: number; max: number } {
  const lines = fs.existsSync(probeFile) ? fs.readFileSync(probeFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  const recent = lines.filter((l) => l.at >= since);
  return { p99: Math.max(0, ...recent.map((l) => l.delay_p99_ms)), max: Math.max(0, ...recent.map((l) => l.delay_max_ms)) };
}

await withDatabase(async (databaseUrl) => {
  const canopy = await startCanopy(databaseUrl, { CANOPY_LOOP_PROBE_FILE: probeFile, CANOPY_LOOP_PROBE_MS: '5000' });
  try {
    const fleet = await simulatedFleet({ adminUrl: canopy.url, apiKey: canopy.apiKey, deviceUrl: `https://127.0.0.1:${canopy.devicePort}`, serverCaPem: canopy.deviceServerCaPem(), count: DEVICES });
    const databaseSize = () => withClient(databaseUrl, async (c) => Number((await c.query('select pg_database_size(current_database()) as size')).rows[0].size) / 1048576);
    console.log(`soak: ${DEVICES} devices checking in every ${POLL_S} s (±${POLL_S / 2} s), admin calls every ${ADMIN_MS} ms, for ${MINUTES} min; PostgreSQL; load average ${loadAverage()}`);

    // Every device's first connection (JITP admits it) before the clock starts: the soak measures
    // the steady state; the reconnect storm (storm.ts) measures arriving all at once.
    const enrolling = Date.now();
    let enrolled = 0;
    for (let i = 0; i < fleet.devices.length; i += 50) {
      await Promise.all(
        fleet.devices.slice(i, i + 50).map(async (device) => {
          for (let attempt = 0; ; attempt++) {
            try {
              await checkIn(device);
              enrolled++;
              return;
            } catch (error) {
              if (attempt > 20) throw error;
              await new Promise((r) => setTimeout(r, 500 + Math.random() * 1000));
            }
          }
        }),
      );
    }
    console.log(`${enrolled} devices enrolled (first connection, JITP) in ${((Date.now() - enrolling) / 1000).toFixed(1)} s`);
    console.log('   min   rss MiB  heap MiB  loop p99/max ms  db MiB  check-ins/s  admin/s  admin p99 ms  failures');
    const deadline = Date.now() + MINUTES * 60_000;
    let checkIns = 0;
    let failures = 0;
    const devicesRunning = fleet.devices.map(async (device) => {
      // Spread over the first interval, as a fleet that has been up for a while is.
      await new Promise((r) => setTimeout(r, Math.random() * POLL_S * 1000));
      while (Date.now() < deadline) {
        try {
          await checkIn(device);
          checkIns++;
        } catch {
          failures++;
        }
        await new Promise((r) => setTimeout(r, (POLL_S + (Math.random() - 0.5) * POLL_S) * 1000));
      }
      device.client.close();
    });
    let adminCalls = 0;
    let round = 0;
    const admin = latencyProbe(async () => {
      const n = round++;
      await fleet.api('GET', '/devices?limit=50');
      if (n % 5 === 0) {
        const product = (await fleet.api('POST', '/products', { name: `soak-${process.pid}-${n}` })).product;
        await fleet.api('PATCH', `/products/${product.prn}`, { name: `soak-${process.pid}-${n}-renamed` });
      }
      adminCalls++;
    }, ADMIN_MS);

    const started = Date.now();
    let lastAt = started;
    let [lastChecks, lastAdmin, lastLatencies] = [0, 0, 0];
    const firstSize = await databaseSize();
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, Math.min(EVERY_S * 1000, Math.max(0, deadline - Date.now()))));
      const now = Date.now();
      const seconds = (now - lastAt) / 1000;
      const probe = lastProbe();
      const delay = worstDelaySince(lastAt);
      const latencies = admin.latencies.slice(lastLatencies);
      console.log(
        [
          ((now - started) / 60_000).toFixed(1).padStart(6),
          String(probe?.rss_mib ?? '?').padStart(9),
          String(probe?.heap_mib ?? '?').padStart(9),
          `${delay.p99.toFixed(0)}/${delay.max.toFixed(0)}`.padStart(16),
          (await databaseSize()).toFixed(0).padStart(7),
          ((checkIns - lastChecks) / seconds).toFixed(0).padStart(12),
          ((adminCalls - lastAdmin) / seconds).toFixed(1).padStart(8),
          percentile(latencies, 0.99).toFixed(0).padStart(13),
          String(failures + admin.failures()).padStart(9),
        ].join(' '),
      );
      [lastAt, lastChecks, lastAdmin, lastLatencies] = [now, checkIns, adminCalls, admin.latencies.length];
    }
    await admin.stop();
    await Promise.all(devicesRunning);
    const finalSize = await databaseSize();
    console.log(`soak done: ${checkIns} check-ins, ${adminCalls} admin rounds, ${failures + admin.failures()} failures; database ${firstSize.toFixed(0)} -> ${finalSize.toFixed(0)} MiB (${((finalSize - firstSize) / MINUTES).toFixed(1)} MiB/min); peak server RSS ${canopy.child.peakRssMb().toFixed(0)} MiB; load average ${loadAverage()}`);
  } finally {
    await canopy.child.stop();
    fs.rmSync(probeFile, { force: true });
  }
});
