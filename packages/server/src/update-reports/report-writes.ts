/**
 * The writes of device update reports as ONE statement of fixed text: per report, its checks
 * (release and bundle of the organization, the admission guard, whether it may cross a health
 * gate) and, only where all pass, its `device.update_reported` event with outbox rows and the
 * upsert of the device's latest report. Reports of one moment share the statement, and its commit
 * waits for the WAL flush (a report's answer says it is kept). A report that may halt its release
 * is refused with `may_halt` and written again under the release lock (rollouts/halt.ts). The
 * soak (rollouts/soak-rule.ts, the same rule in SQL here) rides along: a `healthy` report only
 * updates an installed row, confirming it once the soak is over. Why:
 * docs/decisions/002-grouped-report-writes.md.
 */
import { queryArrayRows } from '../db/array-rows';
import { JSON_ELEMENTS, parameterArrays, unnestParameters } from '../db/array-parameters';
import type { Executor } from '../db/connection';
import { groupsPerExecutor, StatementGroups } from '../db/statement-groups';
import { newEventId } from '../events/event-ids';
import { EVENT_RELATION_COLUMNS, recordingCtes } from '../events/service';
import { assertCatalogued, CHECK_EVENTS, type EventSubtype } from '../events/catalogue';
import { admissionGuardArrays, admissionGuardCte, type AdmissionGuard } from '../admission/port';
import type { UpdateReportStatus } from './schema';
import type { SoakOutcome } from '../rollouts/soak-rule';

export interface ReportWrite {
  deviceId: string;
  organizationId: string;
  /** The device's prn: the event's actor and resource. */
  devicePrn: string;
  /** Null: a bundle outside any release. */
  releaseId: string | null;
  /** Null: the prn named no bundle of the organization (answered `bundle_not_found`). */
  bundleId: string | null;
  status: UpdateReportStatus;
  progress: number | null;
  reason: string | null;
  /** The `device.update_reported` event's data. */
  data: Record<string, unknown>;
  /** The data of the soak event this report would record (`device.soak_passed` or `soak_failed`), if it ends a soak. */
  soakData: Record<string, unknown> | null;
  /** The request's admission, proven by this statement (admission/port.ts); null when admitted before. */
  guard: AdmissionGuard | null;
}

export type ReportOutcome =
  | { kind: 'written'; eventId: string; insertedAt: string; soak: SoakOutcome }
  | { kind: 'release_not_found' }
  | { kind: 'bundle_not_found' }
  | { kind: 'not_admitted' }
  | { kind: 'may_halt' };

/** Groups at the database at once per process, as for update checks (check-writes.ts MAX_IN_FLIGHT). */
const MAX_IN_FLIGHT = 2;
/** Reports per group. */
const MAX_GROUP = 64;

/**
 * The report columns' types (`$1`-`$14`): ord, device, organization, release, bundle, status,
 * progress, reason, event id, device prn, event data, guard ord, soak event id, soak event data.
 */
const REPORT_TYPES = ['int8', 'uuid', 'uuid', 'uuid', 'uuid', 'text', 'float8', 'text', 'uuid', 'text', JSON_ELEMENTS, 'int8', 'uuid', JSON_ELEMENTS];
const REPORT_COLUMNS = 'ord, device_id, organization_id, release_id, bundle_id, status, progress, reason, event_id, device_prn, data, guard_ord, soak_event_id, soak_data';
/** The event each kept report records (events/catalogue.ts). */
const REPORTED = { type: 'device', subtype: 'update_reported' } as const satisfies { type: 'device'; subtype: EventSubtype<'device'> };
/** The events of a soak's end (rollouts/soak-rule.ts). */
const SOAK_PASSED = { type: 'device', subtype: 'soak_passed' } as const satisfies { type: 'device'; subtype: EventSubtype<'device'> };
const SOAK_FAILED = { type: 'device', subtype: 'soak_failed' } as const satisfies { type: 'device'; subtype: EventSubtype<'device'> };

/** `$15`: refuse reports that could cross a health gate. Guards `$16`-`$21`. */
const REFUSE_MAY_HALT = 15;
const GUARDS_FROM = 16;

/**
 * The statement. `report_checks` decides each report from one snapshot; `report_kept` is what
 * passes them all, and everything written is drawn from it alone. The latest-report upsert names
 * one of two partial unique indexes (update-reports/schema.ts) as its conflict target, so there
 * is one upsert per index. A deferral never replaces a finished report: the health gate and the
 * rollout counts read the latest outcome. `installed` starts the soak (`soak_started_at`), kept
 * by a repeated one, which also leaves a confirmed row confirmed. `soak_outcome` is decided from
 * the statement's snapshot of the device's row: two reports of one device at two servers at
 * once could both record a soak event, but the row is confirmed once (its update re-checks
 * `installed`). On a release with a soak, `installed` finishes nothing (the device soaks), so it
 * is not `may_halt`: the report that confirms it is. `now()` is the events' inserted_at (the transaction's start).
 * Built on first use: the event hooks (webhook outbox rows) register when their modules load.
 */
let statement: string | undefined;
function statementText(): string {
  const kept = (withRelease: boolean) => `insert into device_update_reports (id, organization_id, device_id, release_id, bundle_id, status, progress, reason, event_id, soak_started_at)
    select gen_random_uuid(), organization_id, device_id, release_id, bundle_id, status, progress, reason, event_id, case when status = 'installed' then now() end from report_kept
    where release_id is ${withRelease ? 'not null' : 'null'} and status <> 'healthy'
    on conflict (device_id, ${withRelease ? 'release_id) where release_id is not null' : 'bundle_id) where release_id is null'} do update
      set bundle_id = excluded.bundle_id, progress = excluded.progress, reason = excluded.reason, event_id = excluded.event_id, updated_at = now(),
          status = case when excluded.status = 'installed' and device_update_reports.status = 'confirmed' then 'confirmed' else excluded.status end,
          soak_started_at = case when excluded.status <> 'installed' then null when device_update_reports.status in ('installed', 'confirmed') then device_update_reports.soak_started_at else now() end,
          healthy_at = case when excluded.status = 'installed' and device_update_reports.status in ('installed', 'confirmed') then device_update_reports.healthy_at end
      where excluded.status <> 'deferred' or device_update_reports.status not in ('installed', 'confirmed', 'failed', 'rolled_back')`;
  return `with ${admissionGuardCte(GUARDS_FROM)},
  report_checks as materialized (
    select c.*, (c.gated and (c.status in ('failed', 'rolled_back') or (c.status = 'installed' and not c.soaks) or c.soak_outcome = 'passed')) as may_halt
    from (
      select i.*,
        (i.release_id is null or r.id is not null) as release_found,
        b.id is not null as bundle_found,
        (i.guard_ord is null or i.guard_ord in (select ord from admission_guards_held)) as admitted,
        (r.halt_failure_ratio is not null and r.halted_at is null and not r.disabled) as gated,
        coalesce(r.soak_seconds, 0) > 0 as soaks,
        case when coalesce(r.soak_seconds, 0) > 0 and p.status = 'installed' then
          case when i.status = 'healthy' then
                 case when p.soak_started_at + make_interval(secs => r.soak_seconds) <= now() then 'passed' else 'soaking' end
               when i.status in ('failed', 'rolled_back') then 'failed' end
        end as soak_outcome
      from ${unnestParameters(1, REPORT_TYPES)} as i(${REPORT_COLUMNS})
      left join releases r on r.id = i.release_id and r.organization_id = i.organization_id
      left join bundles b on b.id = i.bundle_id and b.organization_id = i.organization_id
      left join device_update_reports p on p.device_id = i.device_id and p.release_id = i.release_id and p.release_id is not null
    ) c
  ),
  report_kept as materialized (
    select * from report_checks
    where release_found and bundle_found and admitted and not (coalesce(may_halt, false) and $${REFUSE_MAY_HALT}::bool)
  ),
  report_events as materialized (
    select ${EVENT_RELATION_COLUMNS.join(', ')} from (
      select event_id as id, organization_id, '${REPORTED.type}'::text as type, '${REPORTED.subtype}'::text as subtype, device_prn as actor_prn, device_prn as resource_prn, data
      from report_kept
      union all
      select soak_event_id, organization_id, '${SOAK_PASSED.type}'::text, (case soak_outcome when 'passed' then '${SOAK_PASSED.subtype}' else '${SOAK_FAILED.subtype}' end)::text, device_prn, device_prn, soak_data
      from report_kept where soak_outcome in ('passed', 'failed')) k
  ),
  soak_healthy as (
    update device_update_reports d
    set healthy_at = now(),
        status = case when k.soak_outcome = 'passed' then 'confirmed' else d.status end,
        event_id = case when k.soak_outcome = 'passed' then k.event_id else d.event_id end,
        updated_at = case when k.soak_outcome = 'passed' then now() else d.updated_at end
    from report_kept k
    where k.status = 'healthy' and k.soak_outcome is not null and d.device_id = k.device_id and d.release_id = k.release_id and d.status = 'installed'
  ),
  ${recordingCtes('report_events').join(',\n  ')},
  release_reports as (${kept(true)}),
  bundle_reports as (${kept(false)})
  select c.ord, c.release_found, c.bundle_found, c.admitted, coalesce(c.may_halt, false) as may_halt, c.ord in (select ord from report_kept) as kept, now()::text as inserted_at, c.soak_outcome
  from report_checks c`;
}

/** Writes `group` in one statement; answers each report's outcome, in order. */
async function writeGroup(db: Executor, group: readonly ReportWrite[], refuseMayHalt: boolean): Promise<ReportOutcome[]> {
  if (CHECK_EVENTS) {
    for (const write of group) {
      assertCatalogued({ ...REPORTED, data: write.data });
      if (write.soakData) assertCatalogued({ ...(write.status === 'healthy' ? SOAK_PASSED : SOAK_FAILED), data: write.soakData });
    }
  }
  const guards: AdmissionGuard[] = [];
  const guardOrds = group.map((write) => (write.guard ? guards.push(write.guard) : null));
  // Made in order: events of one statement share inserted_at and list by (inserted_at, id); a
  // report's soak event comes right after the report's.
  const ids = group.map(() => [newEventId(), newEventId()]);
  const eventIds = ids.map(([id]) => id);
  const values = [
    ...parameterArrays(REPORT_TYPES, [
      group.map((_, i) => i + 1),
      group.map((w) => w.deviceId),
      group.map((w) => w.organizationId),
      group.map((w) => w.releaseId),
      group.map((w) => w.bundleId),
      group.map((w) => w.status),
      group.map((w) => w.progress),
      group.map((w) => w.reason),
      eventIds,
      group.map((w) => w.devicePrn),
      group.map((w) => w.data),
      guardOrds,
      ids.map(([, soakId]) => soakId),
      group.map((w) => w.soakData),
    ]),
    String(refuseMayHalt),
    ...admissionGuardArrays(guards),
  ];
  statement ??= statementText();
  const rows = await queryArrayRows(db, 'update_report_writes', statement, values);
  const byOrd = new Map(rows.map((row) => [Number(row[0]), row]));
  return group.map((_, i): ReportOutcome => {
    const [, releaseFound, bundleFound, admitted, mayHalt, kept, now, soak] = byOrd.get(i + 1)!;
    // The order of the answers: admission first (a refused device learns nothing), then the fields in the body's order.
    if (!admitted) return { kind: 'not_admitted' };
    if (!releaseFound) return { kind: 'release_not_found' };
    if (!bundleFound) return { kind: 'bundle_not_found' };
    if (!kept) {
      if (!mayHalt) throw new Error('update report neither kept nor refused');
      return { kind: 'may_halt' };
    }
    return { kind: 'written', eventId: eventIds[i], insertedAt: String(now), soak: (soak ?? null) as SoakOutcome };
  });
}

/**
 * The grouped writes of one database handle. Two reports of one device never share a group: one
 * statement cannot upsert its latest report twice, so the later waits for the next group.
 */
const groupsOf = groupsPerExecutor(
  (db: Executor) =>
    new StatementGroups<ReportWrite, ReportOutcome>((writes) => writeGroup(db, writes, true), {
      maxInFlight: MAX_IN_FLIGHT,
      maxGroup: MAX_GROUP,
      exclusiveKey: (write) => write.deviceId,
    }),
);

/**
 * Writes one report; resolves once it is committed. Outside a transaction it is grouped and a
 * report that could cross a health gate is refused (`may_halt`); inside a caller's transaction
 * (the gate's, service.ts) it is written alone and such a report is kept.
 */
export async function writeReport(db: Executor, write: ReportWrite): Promise<ReportOutcome> {
  if ('rollback' in db) return (await writeGroup(db, [write], false))[0];
  return groupsOf(db).submit(write);
}
