/**
 * The floor of report ingestion: the least work ANY implementation of `POST /update/reports` must
 * do, on a bare Fastify app over mutual TLS and the benchmark's database, so bench/rollouts.ts
 * shows in the same run how far the real route is from this machine's limit. A static trust store
 * (lib/bare-tls.ts), the JSON body parsed, the device found by fingerprint, ONE row inserted (its
 * event) durably: a report's answer says it is kept, so the commit waits for its WAL flush, as
 * Canopy's does. One statement per event-loop turn (lib/turn-grouped-statement.ts).
 * Left out, so the figure errs high: checks against releases and bundles, the latest-report upsert
 * and counters, the health gate, outbox rows, the live CA check, the admission, request ids, logs.
 * Env: PORT, DATABASE_URL, TLS_CERT, TLS_KEY, CLIENT_CA.
 */
import Fastify from 'fastify';
import type { TLSSocket } from 'node:tls';
import pg from 'pg';
import { bareMtlsOptions, peerFingerprint } from './bare-tls';
import { turnGroupedStatement } from './turn-grouped-statement';

/** Statements at the database at once, as the update-check floor. */
const IN_FLIGHT = 2;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: IN_FLIGHT });

/** The reports of a group (`$1` fingerprints, `$2` their bodies), each recorded as one event of its device; answers the fingerprints found. */
const RECORD = `with r as (select * from unnest($1::text[], $2::jsonb[]) as r(fingerprint, body)),
  d as (select r.fingerprint, r.body, dev.id, dev.organization_id from r
    join device_certificates dc on dc.fingerprint = r.fingerprint join devices dev on dev.id = dc.device_id),
  recorded as (
    insert into events (id, organization_id, type, subtype, actor_prn, resource_prn, data)
    select gen_random_uuid(), d.organization_id, 'device', 'update_reported',
      'prn:1:' || d.organization_id || ':device:' || d.id, 'prn:1:' || d.organization_id || ':device:' || d.id, d.body from d
  )
  select fingerprint as key from d`;

/** One report: its device's certificate fingerprint and its body. */
const record = turnGroupedStatement<{ fingerprint: string; body: string }>(pool, {
  name: 'report_floor',
  text: RECORD,
  inFlight: IN_FLIGHT,
  values: (reports) => [reports.map((r) => r.fingerprint), reports.map((r) => r.body)],
  keyOf: (report) => report.fingerprint,
});

const app = Fastify({ logger: false, https: bareMtlsOptions() });

app.post<{ Body: { status?: unknown } }>('/update/reports', async (request, reply) => {
  if (typeof request.body?.status !== 'string') return reply.code(422).send({ errors: [{ field: 'status' }] });
  if (!(await record({ fingerprint: peerFingerprint(request.raw.socket as TLSSocket), body: JSON.stringify(request.body) }))) return reply.code(401).send({ errors: [{ code: 'unauthenticated' }] });
  return reply.code(201).send({ data: { status: request.body.status } });
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
