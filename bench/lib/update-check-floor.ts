/**
 * The floor of an update check: the least work ANY implementation of POST /devices/{prn}/update
 * must do, served by a bare Fastify app on the benchmark's own seeded database, so the releases
 * benchmark can show in the same run how far the real route is from what this machine allows.
 *
 * Per request it checks the bearer key (SHA-256 and a constant-time compare), parses the JSON body
 * and the device's prn, reads the device and durably records its `device.checked_for_release`
 * event, then answers a fixed `no_update`. Requests are grouped as generously as possible: all
 * requests of an event-loop turn share ONE statement (the device read and the event insert
 * together, one round trip, one commit), and while 2 are at the database the next waits and grows.
 * Left out, so the figure errs high: the release chain, phase claims and their lock, bundle
 * overrides, webhook outbox rows, the resolution itself, the manifest, request ids and logs.
 * Env: PORT, DATABASE_URL, API_KEY.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

/** Statements at the database at once: of 2, 4 and 8, 2 made the largest groups and the best rate. */
const IN_FLIGHT = 2;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: IN_FLIGHT });
const keyHash = createHash('sha256').update(process.env.API_KEY ?? '').digest();
const ACTOR_PRN = 'prn:1:bench:api_key:floor';

const READ_AND_RECORD = `with d as (
    select id, organization_id from devices where id = any($1::uuid[])
  ), recorded as (
    insert into events (id, organization_id, type, subtype, actor_prn, resource_prn, data)
    select gen_random_uuid(), d.organization_id, 'device', 'checked_for_release', $2,
      'prn:1:' || d.organization_id || ':device:' || d.id, '{"status": "no_update"}'::jsonb from d
  )
  select id::text from d`;

interface Waiting {
  deviceId: string;
  done(found: boolean): void;
  fail(error: unknown): void;
}

/** Requests waiting for the next statement: one turn's, or more while IN_FLIGHT are out. */
let waiting: Waiting[] = [];
let inFlight = 0;

function flush(): void {
  if (waiting.length === 0 || inFlight >= IN_FLIGHT) return;
  const group = waiting;
  waiting = [];
  inFlight++;
  pool
    .query({ name: 'floor', text: READ_AND_RECORD, values: [group.map((w) => w.deviceId), ACTOR_PRN] })
    .then(
      (result) => {
        const found = new Set(result.rows.map((row) => row.id as string));
        for (const request of group) request.done(found.has(request.deviceId));
      },
      (error) => group.forEach((request) => request.fail(error)),
    )
    .finally(() => {
      inFlight--;
      flush();
    });
}

function readAndRecord(deviceId: string): Promise<boolean> {
  return new Promise((done, fail) => {
    if (waiting.length === 0) setImmediate(flush);
    waiting.push({ deviceId, done, fail });
  });
}

const app = Fastify({ logger: false });
app.post<{ Params: { prn: string }; Body: { release_prn?: string } }>('/devices/:prn/update', async (request, reply) => {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  if (!timingSafeEqual(createHash('sha256').update(token).digest(), keyHash)) return reply.code(401).send({ errors: [{ code: 'invalid_api_key' }] });
  if (typeof request.body?.release_prn !== 'string') return reply.code(422).send({ errors: [{ field: 'release_prn' }] });
  const deviceId = request.params.prn.split(':')[4];
  if (!(await readAndRecord(deviceId))) return reply.code(404).send({ errors: [{ code: 'not_found' }] });
  return { status: 'no_update', source_type: null, source_prn: null, bundle_prn: null, manifest: null };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
