/**
 * Webhook delivery benchmark: two server processes sharing one PostgreSQL deliver events to a
 * local HTTPS receiver. Prints
 *   - throughput: events committed in bulk -> all delivered, in deliveries/s, beside a baseline
 *     of bare HTTPS POSTs to the same receiver at the same concurrency (the ceiling, no database);
 *   - latency: p50/p99 from an event's commit to its first delivery attempt, at a steady rate.
 * Events are recorded straight into the database with the server's own recordEvent, so the
 * outbox rows are written exactly as in production and the API's speed does not cap the figure.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx bench/webhooks.ts
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as schema from '../packages/server/src/db/schema';
import type { Database } from '../packages/server/src/db/connection';
import { recordEvent } from '../packages/server/src/events/service';
import '../packages/server/src/webhooks/outbox';
import { createWebhookSender } from '../packages/server/src/webhooks/outbound';
import { createTestDatabase } from '../packages/server/test/support/database';
import { freePort, spawnServer, type ServerProcess } from '../packages/server/test/support/server-process';
import { startReceiver, waitFor } from '../packages/server/test/support/webhook-receiver';

const BULK_EVENTS = Number(process.env.BENCH_EVENTS ?? 3000);
const STEADY_RATE = Number(process.env.BENCH_RATE ?? 100); // events/s
const STEADY_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = 64; // per server process
const API_KEY = 'cnpy_bench_webhooks_0123456789abcdef0123456789';

/** CPU time (user + system) a process has used so far, in ms: what a loaded machine cannot distort. */
function cpuMs(pid: number | undefined): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function baselinePostsPerSecond(url: string, caFile: string, requests: number): Promise<number> {
  const sender = createWebhookSender({ allowPrivate: true, timeoutMs: 10_000, caFiles: [caFile] });
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY * 2 }, async () => {
      while (next++ < requests) await sender.post(url, '{"version":1}', {});
    }),
  );
  sender.close();
  return requests / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.log('bench/webhooks: set DATABASE_URL to a PostgreSQL server (two processes need a shared database); skipped.');
    return;
  }
  const database = await createTestDatabase();
  const receiver = await startReceiver();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-'));
  const servers: ServerProcess[] = [];
  const pool = new pg.Pool({ connectionString: database.url!, max: 10, options: '-c TimeZone=UTC' });
  try {
    const env = {
      DATABASE_URL: database.url!,
      CANOPY_DATA_DIR: dataDir,
      CANOPY_BOOTSTRAP_API_KEY: API_KEY,
      CANOPY_SECRET_KEY: 'cd'.repeat(32),
      CANOPY_LOG_LEVEL: 'warn',
      CANOPY_WEBHOOK_ALLOW_PRIVATE: '1',
      CANOPY_WEBHOOK_CA_FILE: receiver.caFile,
      CANOPY_WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      CANOPY_WEBHOOK_POLL_MS: '50',
    };
    // One after the other: the first applies migrations and creates the organization.
    // BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles both servers.
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    for (let i = 0; i < 2; i++) servers.push(await spawnServer(env, await freePort(), 120_000, nodeArgs));
    const created = await fetch(`${servers[0].url}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, enabled_events: ['device.release_changed'] }),
    }).then((r) => r.json() as Promise<any>);
    const organizationId = created.webhook.organization_prn.split(':')[2];
    const db = drizzle(pool, { schema }) as unknown as Database;
    const newEvent = (n: number) => ({ organizationId, type: 'device' as const, subtype: 'release_changed', actorPrn: null, resourcePrn: null, data: { n } });
    const succeeded = async () =>
      (await db.execute(sql`select count(*)::int as n from webhook_deliveries where state = 'succeeded'`)) as unknown as { rows: { n: number }[] };

    const baseline = await baselinePostsPerSecond(receiver.url, receiver.caFile, BULK_EVENTS);

    // Throughput: commit every event (ten writers at once, so committing outpaces delivering), then
    // time from the first commit until the last delivery succeeded.
    const serversCpu = () => servers.reduce((sum, server) => sum + cpuMs(server.child.pid), 0);
    const bulkCpuStart = serversCpu();
    const bulkStart = performance.now();
    const WRITERS = 10;
    await Promise.all(
      Array.from({ length: WRITERS }, (_, w) =>
        db.transaction(async (tx) => {
          for (let i = w; i < BULK_EVENTS; i += WRITERS) await recordEvent(tx, newEvent(i));
        }),
      ),
    );
    const committed = performance.now();
    await waitFor(async () => (await succeeded()).rows[0].n >= BULK_EVENTS, 'bulk delivery', 600_000);
    const bulkSeconds = (performance.now() - bulkStart) / 1000;
    const cpuPerDelivery = (serversCpu() - bulkCpuStart) / BULK_EVENTS;

    // Latency: one event per transaction at a steady rate; commit time taken when commit returns.
    const commitTimes = new Map<string, number>();
    const total = STEADY_RATE * STEADY_SECONDS;
    const steadyStart = Date.now();
    for (let i = 0; i < total; i++) {
      const due = steadyStart + (i * 1000) / STEADY_RATE;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const event = await db.transaction((tx) => recordEvent(tx, newEvent(BULK_EVENTS + i)));
      commitTimes.set(event.id, Date.now());
    }
    await waitFor(async () => (await succeeded()).rows[0].n >= BULK_EVENTS + total, 'steady delivery', 600_000);
    const firstAttempts = (await db.execute(sql`
      select event_id, (extract(epoch from first_attempt_at) * 1000)::float8 as at from webhook_deliveries`)) as unknown as { rows: { event_id: string; at: number }[] };
    const latencies = firstAttempts.rows
      .filter((r) => commitTimes.has(r.event_id))
      .map((r) => Math.max(0, r.at - commitTimes.get(r.event_id)!))
      .sort((a, b) => a - b);
    const outcomes = (await db.execute(sql`select coalesce(error, 'ok') as outcome, count(*)::int as n from webhook_attempts group by 1 order by 2 desc`)) as unknown as {
      rows: { outcome: string; n: number }[];
    };

    console.log(`webhook delivery, 2 server processes x ${CONCURRENCY} in flight, PostgreSQL, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}`);
    console.log(`  baseline: bare HTTPS POSTs to the receiver          ${baseline.toFixed(0)} req/s`);
    console.log(`  throughput: ${BULK_EVENTS} events committed in ${((committed - bulkStart) / 1000).toFixed(1)} s, delivered at ${(BULK_EVENTS / bulkSeconds).toFixed(0)} deliveries/s`);
    console.log(`  server CPU per delivery (both processes, user + system): ${cpuPerDelivery.toFixed(2)} ms`);
    console.log(`  commit -> first attempt at ${STEADY_RATE} events/s (${latencies.length} events): p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${latencies[latencies.length - 1].toFixed(0)} ms`);
    const resent = (await db.execute(sql`select count(*)::int as n from webhook_attempts a
      join webhook_attempts s on s.delivery_id = a.delivery_id and s.error is null and s.attempt < a.attempt`)) as unknown as { rows: { n: number }[] };
    console.log(`  attempts by outcome: ${outcomes.rows.map((r) => `${r.outcome} ${r.n}`).join(', ')}; attempts after a recorded success: ${resent.rows[0].n}`);
  } finally {
    for (const server of servers) await server.kill('SIGTERM');
    await pool.end();
    await receiver.close();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
