/**
 * The reconnect storm (issue 32): virtual devices (JITP, the SDK's device client, real mutual TLS)
 * all connect at once to one server process on PostgreSQL with its handshake shedding; a shed
 * device retries after a jittered 0.5-2.5 s, as canopy-daemon does. An admin client calls
 * `GET /products` every 50 ms from its own thread (server test/support/admin-probe-thread.ts), so
 * the devices' client TLS work is not counted as server latency. Printed: the admin p50/p99 before
 * (the baseline) and during the storm and their p99 ratio, the server's event-loop delay
 * (lib/loop-probe.mjs), attempts shed, time until every device was served, the load average.
 * Env: BENCH_STORM_DEVICES (5,000), CANOPY_DEVICE_HANDSHAKE_* (the server's shedding settings).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminProbeThread } from '../packages/server/test/support/admin-probe-thread';
import { startCanopy } from './lib/canopy';
import { loadAverage } from './lib/cpu-time';
import { withDatabase } from './lib/postgres';
import { ROOT } from './lib/processes';
import { checkIn, percentile, simulatedFleet } from './lib/simulated-devices';

const DEVICES = Number(process.env.BENCH_STORM_DEVICES ?? 5000);
const QUIET_SECONDS = 10;
const serverEnv: Record<string, string> = {};
for (const [name, value] of Object.entries(process.env)) if (name.startsWith('CANOPY_DEVICE_HANDSHAKE_') && value) serverEnv[name] = value;

const probeFile = path.join(os.tmpdir(), `canopy-storm-probe-${process.pid}.jsonl`);
fs.rmSync(probeFile, { force: true });
process.env.BENCH_NODE_ARGS = `${process.env.BENCH_NODE_ARGS ?? ''} --import ${path.join(ROOT, 'bench/lib/loop-probe.mjs')}`.trim();

/** The server's event-loop delay over the probe's lines from `from` to `to` (ms): the worst p99 and max of a second. */
function loopDelay(from: number, to: number): { p99: number; max: number } {
  const lines = fs.readFileSync(probeFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { at: number; delay_p99_ms: number; delay_max_ms: number });
  const within = lines.filter((l) => l.at > from && l.at <= to + 1000);
  return { p99: Math.max(0, ...within.map((l) => l.delay_p99_ms)), max: Math.max(0, ...within.map((l) => l.delay_max_ms)) };
}

await withDatabase(async (databaseUrl) => {
  const canopy = await startCanopy(databaseUrl, { ...serverEnv, CANOPY_LOOP_PROBE_FILE: probeFile, CANOPY_LOOP_PROBE_MS: '1000' });
  try {
    // One attempt per call: the storm's retries are counted here.
    const fleet = await simulatedFleet({ adminUrl: canopy.url, apiKey: canopy.apiKey, deviceUrl: `https://127.0.0.1:${canopy.devicePort}`, serverCaPem: canopy.deviceServerCaPem(), count: DEVICES, attempts: 1 });
    const adminUrl = `${canopy.url}/products?limit=10`;
    const loadBefore = loadAverage();
    const quietFrom = Date.now();
    const quietProbe = adminProbeThread(adminUrl, canopy.apiKey, 50);
    await new Promise((r) => setTimeout(r, QUIET_SECONDS * 1000));
    const quiet = await quietProbe.stop();
    const quietLoop = loopDelay(quietFrom, Date.now());

    const duringProbe = adminProbeThread(adminUrl, canopy.apiKey, 50);
    let shed = 0;
    let served = 0;
    const started = Date.now();
    let lastServedAt = started;
    await Promise.all(
      fleet.devices.map(async (device) => {
        for (;;) {
          try {
            await checkIn(device);
            served++;
            lastServedAt = Date.now();
            return;
          } catch {
            shed++;
            await new Promise((r) => setTimeout(r, 500 + Math.random() * 2000));
          }
        }
      }),
    );
    const during = await duringProbe.stop();
    const stormLoop = loopDelay(started, lastServedAt);
    const loadAfter = loadAverage();
    for (const device of fleet.devices) device.client.close();
    const [q50, q99, d50, d99] = [percentile(quiet.latencies, 0.5), percentile(quiet.latencies, 0.99), percentile(during.latencies, 0.5), percentile(during.latencies, 0.99)];
    const settings = Object.entries(serverEnv).map(([k, v]) => `${k}=${v}`).join(' ') || 'default handshake shedding';
    console.log(`reconnect storm (${settings}): ${served} of ${DEVICES} devices served in ${((lastServedAt - started) / 1000).toFixed(1)} s; ${shed} attempts shed or failed and retried`);
    console.log(`admin GET /products: before the storm p50 ${q50.toFixed(1)} ms, p99 ${q99.toFixed(1)} ms (${quiet.latencies.length} calls); during it p50 ${d50.toFixed(1)} ms, p99 ${d99.toFixed(1)} ms, max ${Math.max(...during.latencies).toFixed(0)} ms (${during.latencies.length} calls, ${during.failures} failed): p99 ratio ${(d99 / q99).toFixed(1)}x`);
    console.log(`server event-loop delay, worst second: before p99 ${quietLoop.p99} ms, max ${quietLoop.max} ms; during p99 ${stormLoop.p99} ms, max ${stormLoop.max} ms`);
    console.log(`peak server RSS ${canopy.child.peakRssMb().toFixed(0)} MiB; load average before the storm ${loadBefore}, after it ${loadAfter}`);
  } finally {
    await canopy.child.stop();
    fs.rmSync(probeFile, { force: true });
  }
});
