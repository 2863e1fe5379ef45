/**
 * The floor of an update check: the least work ANY implementation of an update check must do,
 * served by a bare Fastify app on the benchmark's own seeded database, so a benchmark can show in
 * the same run how far the real route is from what this machine allows. Two forms:
 *
 *  - admin (POST /devices/{prn}/update, the releases benchmark): checks the bearer key (SHA-256
 *    and a constant-time compare), parses the JSON body and the device's prn;
 *  - device (GET /update over mutual TLS, the device API benchmark, with TLS_CERT, TLS_KEY and
 *    CLIENT_CA, lib/bare-tls.ts): OpenSSL verifies the client certificate against a static trust
 *    store, and the device is found by its certificate's fingerprint (once per connection).
 *
 * Then it reads the device and records its `device.checked_for_release` event, and answers a fixed
 * `no_update`. The event commits as Canopy commits a check that changes nothing
 * (updates/check-writes.ts): visible before the answer, its WAL flush not waited for. Requests
 * are grouped as generously as possible: all requests of an event-loop turn share ONE statement
 * (the device read and the event insert together, one round trip, one commit), and while 2 are at
 * the database the next waits and grows.
 * Left out, so the figure errs high: the release chain, phase claims and their lock, bundle
 * overrides, webhook outbox rows, the resolution itself, the manifest, request ids and logs; on
 * the device API also the chain check against the CAs registered now, the certificate's
 * expiry, `device.connected`, last_connected_at and the reported state.
 * Env: PORT, DATABASE_URL, API_KEY (admin), or TLS_CERT, TLS_KEY, CLIENT_CA (device).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import type { TLSSocket } from 'node:tls';
import pg from 'pg';
import { bareMtlsOptions, peerFingerprint } from './bare-tls';
import { turnGroupedStatement } from './turn-grouped-statement';

/** Statements at the database at once: of 2, 4 and 8, 2 made the largest groups and the best rate. */
const IN_FLIGHT = 2;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: IN_FLIGHT });
const keyHash = createHash('sha256').update(process.env.API_KEY ?? '').digest();
const ACTOR_PRN = 'prn:1:bench:api_key:floor';

const DEVICE_MODE = Boolean(process.env.TLS_CERT);

/** The devices asked for ($1, by id or by certificate fingerprint), each with its event recorded; answers the keys found. */
const FIND = DEVICE_MODE
  ? `select dc.fingerprint as key, d.id, d.organization_id from device_certificates dc join devices d on d.id = dc.device_id where dc.fingerprint = any($1::text[])`
  : `select id::text as key, id, organization_id from devices where id = any($1::uuid[])`;
const READ_AND_RECORD = `with d as (${FIND}), recorded as (
    insert into events (id, organization_id, type, subtype, actor_prn, resource_prn, data)
    select gen_random_uuid(), d.organization_id, 'device', 'checked_for_release',
      coalesce($2, 'prn:1:' || d.organization_id || ':device:' || d.id),
      'prn:1:' || d.organization_id || ':device:' || d.id, '{"status": "no_update"}'::jsonb from d
    where (select set_config('synchronous_commit', 'off', true)) = 'off'
  )
  select key from d`;

/** A device, by its id (admin) or its certificate's fingerprint (device). */
const readAndRecord = turnGroupedStatement<string>(pool, {
  name: 'floor',
  text: READ_AND_RECORD,
  inFlight: IN_FLIGHT,
  values: (keys) => [keys, DEVICE_MODE ? null : ACTOR_PRN],
  keyOf: (key) => key,
});

const NO_UPDATE = { status: 'no_update', source_type: null, source_prn: null, bundle_prn: null, manifest: null };

const app = DEVICE_MODE ? Fastify({ logger: false, https: bareMtlsOptions() }) : Fastify({ logger: false });

if (DEVICE_MODE) {
  app.get('/update', async (request, reply) => {
    if (!(await readAndRecord(peerFingerprint(request.raw.socket as TLSSocket)))) return reply.code(401).send({ errors: [{ code: 'unauthenticated' }] });
    return NO_UPDATE;
  });
}

app.post<{ Params: { prn: string }; Body: { release_prn?: string } }>('/devices/:prn/update', async (request, reply) => {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  if (!timingSafeEqual(createHash('sha256').update(token).digest(), keyHash)) return reply.code(401).send({ errors: [{ code: 'invalid_api_key' }] });
  if (typeof request.body?.release_prn !== 'string') return reply.code(422).send({ errors: [{ field: 'release_prn' }] });
  const deviceId = request.params.prn.split(':')[4];
  if (!(await readAndRecord(deviceId))) return reply.code(404).send({ errors: [{ code: 'not_found' }] });
  return NO_UPDATE;
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
