/**
 * The floor of an update check: the least work ANY implementation must do, on a bare Fastify app
 * and the benchmark's database, so a run shows how far the real route is from this machine's limit.
 * Admin form (POST /devices/{prn}/update): a bearer key, SHA-256, constant-time compare. Device
 * form (GET /update, mutual TLS, lib/bare-tls.ts): a static trust store; the device found by its
 * certificate's fingerprint once per connection. Both read the device, record
 * `device.checked_for_release` (WAL flush not awaited, as check-writes.ts) in one statement per
 * event-loop turn and answer `no_update`. Left out, so the figure errs high: releases, claims,
 * overrides, outbox rows, resolution, manifest, logs; for devices the CA, expiry and connection writes.
 * Env: PORT, DATABASE_URL, and API_KEY (admin) or TLS_CERT, TLS_KEY, CLIENT_CA (device).
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
