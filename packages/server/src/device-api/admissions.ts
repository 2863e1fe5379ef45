/**
 * Whether a device may be served right now, asked of the database and answered together with
 * the writes that go with it, for every device API request:
 *
 *   - a new connection: its certificate is registered to this device, the device belongs to the
 *     organization of the CA that signed the chain and is not archived, and that CA is still
 *     registered; then `device.connected` (with its webhook outbox rows) and the throttled
 *     `last_connected_at` write;
 *   - a later request on an open connection: the certificate is still registered to the device
 *     and the device not archived (deleting or archiving takes effect on the next request);
 *     `last_connected_at` when due on a long-lived connection.
 *
 * The checks and the writes are ONE statement, so an event is recorded exactly when its device
 * was admitted by the same snapshot, and the statement is shared by the admissions of every
 * request arriving at about the same time (db/statement-groups.ts): a busy server pays one round
 * trip and, when anything is written, one commit per group, and each caller still waits for it.
 */
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { DeviceRow } from '../certificates/device-certificate-lookup';
import { caCertificates, deviceCertificates } from '../certificates/schema';
import { queryArrayRows } from '../db/array-rows';
import type { Executor } from '../db/connection';
import { groupsPerExecutor, StatementGroups } from '../db/statement-groups';
import { LAST_CONNECTED_INTERVAL_MS } from '../devices/last-connected';
import { devices } from '../devices/schema';
import { recordEventsInOneStatement, type NewEvent } from '../events/service';

export interface Admission {
  deviceId: string;
  /** The organization the device must belong to (the CA's, on a new connection). */
  organizationId: string;
  /** SHA-256 of the client certificate, upper-case hex: must be registered to this device. */
  fingerprint: string;
  /** A new connection: the registered CA its chain verified against, which must still be registered. */
  caId: string | null;
  /** Write last_connected_at, unless some process wrote it within the interval. */
  touch: boolean;
  /** Recorded when, and only when, the device is admitted (`device.connected`). */
  event: NewEvent | null;
}

/** Why the database did not admit a device: the refusal reasons of failures.ts this can produce. */
export type AdmissionRefusal = 'certificate_not_registered' | 'device_is_archived' | 'unknown_ca';

export type AdmissionResult = { admitted: true; device: DeviceRow } | { admitted: false; reason: AdmissionRefusal; device: DeviceRow | null };

const DEVICE_COLUMNS = Object.entries(getTableColumns(devices));
// Timestamps as PostgreSQL's text (what drizzle's string-mode columns hold), whichever path reads them.
const DEVICE_SELECTION = sql.raw(
  DEVICE_COLUMNS.map(([, column]) => (column.getSQLType().startsWith('timestamp') ? `d.${column.name}::text as ${column.name}` : `d.${column.name}`)).join(', '),
);
const FACTS = ['certificate_registered', 'ca_vouches'] as const;

/**
 * Each admission's device row and the facts that decide it, as of the statement's snapshot. The
 * admissions come as five arrays (`params`), so the text is the same for any group size.
 */
function checksQuery(params: readonly [SQL, SQL, SQL, SQL, SQL]): SQL {
  const [admissions, deviceIds, organizationIds, fingerprints, caIds] = params;
  return sql`
    select v.admission, ${DEVICE_SELECTION},
      exists (select 1 from ${deviceCertificates} dc where dc.fingerprint = v.fingerprint and dc.device_id = v.device_id) as ${sql.raw(FACTS[0])},
      (v.ca_id is null or (exists (select 1 from ${caCertificates} c where c.id = v.ca_id) and d.organization_id = v.organization_id)) as ${sql.raw(FACTS[1])}
    from unnest(${admissions}::int[], ${deviceIds}::uuid[], ${organizationIds}::uuid[], ${fingerprints}::text[], ${caIds}::uuid[])
      as v(admission, device_id, organization_id, fingerprint, ca_id)
    left join ${devices} d on d.id = v.device_id`;
}

function paramsOf(group: readonly Admission[]): unknown[] {
  return [group.map((_, i) => i), group.map((a) => a.deviceId), group.map((a) => a.organizationId), group.map((a) => a.fingerprint), group.map((a) => a.caId)];
}

const checksOf = (group: readonly Admission[]) => checksQuery(paramsOf(group).map((values) => sql.param(values)) as unknown as [SQL, SQL, SQL, SQL, SQL]);

/** The read-only form (later requests on open connections): a named statement, planned once per database connection. */
const READMIT = {
  name: 'device_api_readmit',
  text: new PgDialect().sqlToQuery(checksQuery([sql.raw('$1'), sql.raw('$2'), sql.raw('$3'), sql.raw('$4'), sql.raw('$5')])).sql,
};

async function readmitGroup(db: Executor, group: readonly Admission[]): Promise<AdmissionResult[]> {
  const names = ['admission', ...DEVICE_COLUMNS.map(([, column]) => column.name), ...FACTS];
  const rows = await queryArrayRows(db, READMIT.name, READMIT.text, paramsOf(group));
  const byAdmission = new Map(rows.map((values) => [Number(values[0]), Object.fromEntries(names.map((name, i) => [name, values[i]]))]));
  return group.map((_, i) => resultOf(byAdmission.get(i)));
}

const ADMITTED = sql`checks.id is not null and checks.certificate_registered and checks.ca_vouches and not checks.archived`;

async function admitGroup(db: Executor, group: readonly Admission[]): Promise<AdmissionResult[]> {
  const writes = group.some((admission) => admission.touch || admission.event);
  if (!writes && !('rollback' in db)) return readmitGroup(db, group);
  const touching = group.flatMap((admission, i) => (admission.touch ? [i] : []));
  const ctes = [{ name: 'checks', sql: checksOf(group), materialized: true }];
  if (touching.length > 0) {
    // The interval is also a condition here, so many server processes together write once per interval.
    ctes.push({
      name: 'touched',
      materialized: false,
      sql: sql`update ${devices} set last_connected_at = now()
        where id in (select checks.id from checks where ${ADMITTED} and checks.admission = any(${sql.param(touching)}::int[]))
          and (last_connected_at is null or last_connected_at < now() - make_interval(secs => ${LAST_CONNECTED_INTERVAL_MS / 1000}))
        returning id, last_connected_at`,
    });
  }
  const events = group.flatMap((admission, i) =>
    admission.event ? [{ ...admission.event, when: sql`exists (select 1 from checks where checks.admission = ${i}::int and ${ADMITTED})` }] : [],
  );
  const touchedAt = touching.length > 0 ? sql`(select touched.last_connected_at from touched where touched.id = checks.id limit 1)` : sql`null`;
  const select = sql`select checks.*, ${touchedAt} as touched_at from checks`;
  const rows = (await recordEventsInOneStatement(db, events, { ctes, select })) as Record<string, unknown>[];
  const byAdmission = new Map(rows.map((row) => [Number(row.admission), row]));
  return group.map((_, i) => resultOf(byAdmission.get(i)));
}

function resultOf(row: Record<string, unknown> | undefined): AdmissionResult {
  if (!row || row.id === null) return { admitted: false, reason: 'certificate_not_registered', device: null };
  const device = Object.fromEntries(DEVICE_COLUMNS.map(([key, column]) => [key, row[column.name] === null ? null : column.mapFromDriverValue(row[column.name])])) as DeviceRow;
  if (row.touched_at !== null && row.touched_at !== undefined) device.lastConnectedAt = String(row.touched_at);
  if (!row.certificate_registered) return { admitted: false, reason: 'certificate_not_registered', device };
  if (!row.ca_vouches) return { admitted: false, reason: 'unknown_ca', device };
  if (device.archived) return { admitted: false, reason: 'device_is_archived', device };
  return { admitted: true, device };
}

const admissionGroups = groupsPerExecutor((db: Executor) => new StatementGroups<Admission, AdmissionResult>((group) => admitGroup(db, group)));

/** Admits (or refuses) one device, its writes committed when this resolves. */
export function admitDevice(db: Executor, admission: Admission): Promise<AdmissionResult> {
  // Inside a caller's transaction the writes belong to it alone: no grouping with other requests.
  if ('rollback' in db) return admitGroup(db, [admission]).then(([result]) => result);
  return admissionGroups(db).submit(admission);
}
