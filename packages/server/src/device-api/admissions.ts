/**
 * Whether a device may be served now, asked of the database together with the writes that go
 * with it, for every device API request (docs/decisions/004-device-connection-admission.md):
 * - a new connection: its certificate registered to this device, the device in the organization
 *   of the CA that signed the chain and not archived, that CA still registered; then
 *   `device.connected` (with outbox rows) and the throttled `last_connected_at`, unless the
 *   route records those in its own statement (connection-admission.ts);
 * - a later request: the certificate still registered, the device not archived; `last_connected_at`
 *   when due. Checks and writes are ONE statement, so an event is recorded exactly when the same
 *   snapshot admitted its device, shared by admissions arriving together (db/statement-groups.ts).
 */
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { DeviceRow } from '../certificates/device-certificate-lookup';
import { caCertificates, deviceCertificates } from '../certificates/schema';
import { queryArrayRows } from '../db/array-rows';
import type { Executor } from '../db/connection';
import { groupsPerExecutor, StatementGroups } from '../db/statement-groups';
import { lastConnectedDue } from '../devices/last-connected';
import { DEVICE_ROW_COLUMNS, devices } from '../devices/schema';
import { EVENT_RELATION_TYPES, eventRelationValues, recordingCtes, type NewEvent } from '../events/service';
import { parameterArray, parameterArrays, unnestParameters } from '../db/array-parameters';

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

/** `version`: the device row's version as read (PostgreSQL's xmin): an AdmissionGuard names it. */
export type AdmissionResult = { admitted: true; device: DeviceRow; version: string } | { admitted: false; reason: AdmissionRefusal; device: DeviceRow | null };

const DEVICE_COLUMNS = Object.entries(DEVICE_ROW_COLUMNS);
// Timestamps as PostgreSQL's text (what drizzle's string-mode columns hold), whichever path reads them.
const DEVICE_SELECTION = sql.raw(
  DEVICE_COLUMNS.map(([, column]) => (column.getSQLType().startsWith('timestamp') ? `d.${column.name}::text as ${column.name}` : `d.${column.name}`)).join(', '),
);
const FACTS = ['certificate_registered', 'ca_vouches', 'row_version'] as const;

/** The types of the checks' parameters: the admission's index, device, organization, certificate fingerprint, CA. */
const CHECK_TYPES = ['int', 'uuid', 'uuid', 'text', 'uuid'];

/**
 * Each admission's device row and the facts that decide it, as of the statement's snapshot, over
 * `$1`-`$5`: the admissions come as five arrays (paramsOf), so the text is the same for any
 * group size. The arrays go in as db/array-parameters.ts says, here and in the events of
 * admitStatementText, so the statement is planned once per database connection.
 */
const CHECKS_TEXT = new PgDialect().sqlToQuery(sql`
    select v.admission, ${DEVICE_SELECTION},
      exists (select 1 from ${deviceCertificates} dc where dc.fingerprint = v.fingerprint and dc.device_id = v.device_id) as ${sql.raw(FACTS[0])},
      (v.ca_id is null or (exists (select 1 from ${caCertificates} c where c.id = v.ca_id) and d.organization_id = v.organization_id)) as ${sql.raw(FACTS[1])},
      d.xmin::text as ${sql.raw(FACTS[2])}
    from ${sql.raw(unnestParameters(1, CHECK_TYPES))}
      as v(admission, device_id, organization_id, fingerprint, ca_id)
    left join ${devices} d on d.id = v.device_id`).sql;

function paramsOf(group: readonly Admission[]): string[] {
  return parameterArrays(CHECK_TYPES, [group.map((_, i) => i), group.map((a) => a.deviceId), group.map((a) => a.organizationId), group.map((a) => a.fingerprint), group.map((a) => a.caId)]);
}

/** The statement's columns, in order: what the checks select. */
const CHECK_COLUMNS = ['admission', ...DEVICE_COLUMNS.map(([, column]) => column.name), ...FACTS];

/** The read-only form (later requests on open connections): a named statement, planned once per database connection. */
const READMIT = { name: 'device_api_readmit', text: CHECKS_TEXT };

async function readmitGroup(db: Executor, group: readonly Admission[]): Promise<AdmissionResult[]> {
  const rows = await queryArrayRows(db, READMIT.name, READMIT.text, paramsOf(group));
  return resultsByAdmission(group, rows, CHECK_COLUMNS);
}

const ADMITTED = 'checks.id is not null and checks.certificate_registered and checks.ca_vouches and not checks.archived';

/**
 * The writing form (new connections, and last_connected_at when due), ONE fixed text whatever the
 * group holds, so PostgreSQL parses and plans it once per connection: the checks over `$1`-`$5`,
 * the admissions to touch `$6`, and the events `$7`-`$14` (each with the admission it belongs to,
 * kept only when that admission is admitted), with their webhook outbox rows. Built on first use:
 * the event hooks register when their modules load.
 */
const ADMIT_NAME = 'device_api_admit';
/** The types of the admit statement's events: the admission each belongs to, then the event's columns (its data as JSON). */
const ADMISSION_EVENT_TYPES = ['int', ...EVENT_RELATION_TYPES];
let admitStatement: string | undefined;
function admitStatementText(): string {
  const ctes = [
    `checks as materialized (${CHECKS_TEXT})`,
    // The interval is also a condition here, so many server processes together write once per interval.
    `touched as (
      update devices set last_connected_at = now()
      where id in (select checks.id from checks where ${ADMITTED} and checks.admission = any($6::int[]))
        and ${lastConnectedDue('')}
      returning id, last_connected_at, xmin::text as row_version)`,
    // The event's device object from the row this statement reads, with its cohort's current
    // name (auth-events.ts eventDeviceObject; prns as core/prn.ts writes them).
    `admission_events as materialized (
      select e.id, e.organization_id, e.type, e.subtype, e.actor_prn, e.resource_prn,
        jsonb_set(e.data, '{device}', jsonb_build_object(
          'prn', e.data->'device'->'prn',
          'identifier', checks.identifier,
          'cohort', case when checks.cohort_id is null then null else jsonb_build_object(
            'cohort_prn', 'prn:1:' || checks.organization_id || ':cohort:' || checks.cohort_id,
            'cohort_name', (select c.name from cohorts c where c.id = checks.cohort_id)) end)) as data
      from ${unnestParameters(7, ADMISSION_EVENT_TYPES)}
        as e(admission, id, organization_id, type, subtype, actor_prn, resource_prn, data)
      join checks on checks.admission = e.admission
      where ${ADMITTED})`,
    ...recordingCtes('admission_events'),
  ];
  return `with ${ctes.join(',\n')}
    select checks.*, (select touched.last_connected_at::text from touched where touched.id = checks.id limit 1) as touched_at,
      (select touched.row_version from touched where touched.id = checks.id limit 1) as touched_version
    from checks`;
}

async function admitGroup(db: Executor, group: readonly Admission[]): Promise<AdmissionResult[]> {
  if (!group.some((admission) => admission.touch || admission.event)) return readmitGroup(db, group);
  const touching = group.flatMap((admission, i) => (admission.touch ? [i] : []));
  const events = group.flatMap((admission, admissionIndex) => (admission.event ? [{ ...admission.event, admissionIndex }] : []));
  const values = [
    ...paramsOf(group),
    parameterArray('int', touching),
    ...parameterArrays(ADMISSION_EVENT_TYPES, [events.map((e) => e.admissionIndex), ...eventRelationValues(events)]),
  ];
  admitStatement ??= admitStatementText();
  const rows = await queryArrayRows(db, ADMIT_NAME, admitStatement, values);
  return resultsByAdmission(group, rows, [...CHECK_COLUMNS, 'touched_at', 'touched_version']);
}

/** Each admission's result from the statement's rows (arrays of `columns`, the first the admission's index). */
function resultsByAdmission(group: readonly Admission[], rows: unknown[][], columns: readonly string[]): AdmissionResult[] {
  const byAdmission = new Map(rows.map((values) => [Number(values[0]), Object.fromEntries(columns.map((name, i) => [name, values[i]]))]));
  return group.map((_, i) => resultOf(byAdmission.get(i)));
}

function resultOf(row: Record<string, unknown> | undefined): AdmissionResult {
  if (!row || row.id === null) return { admitted: false, reason: 'certificate_not_registered', device: null };
  const device = Object.fromEntries(DEVICE_COLUMNS.map(([key, column]) => [key, row[column.name] === null ? null : column.mapFromDriverValue(row[column.name])])) as DeviceRow;
  if (row.touched_at !== null && row.touched_at !== undefined) device.lastConnectedAt = String(row.touched_at);
  if (!row.certificate_registered) return { admitted: false, reason: 'certificate_not_registered', device };
  if (!row.ca_vouches) return { admitted: false, reason: 'unknown_ca', device };
  if (device.archived) return { admitted: false, reason: 'device_is_archived', device };
  // A row this statement touched has the version it wrote.
  return { admitted: true, device, version: String(row.touched_version ?? row.row_version) };
}

const admissionGroups = groupsPerExecutor((db: Executor) => new StatementGroups<Admission, AdmissionResult>((group) => admitGroup(db, group)));

/** Admits (or refuses) one device, its writes committed when this resolves. */
export function admitDevice(db: Executor, admission: Admission): Promise<AdmissionResult> {
  // Inside a caller's transaction the writes belong to it alone: no grouping with other requests.
  if ('rollback' in db) return admitGroup(db, [admission]).then(([result]) => result);
  return admissionGroups(db).submit(admission);
}
