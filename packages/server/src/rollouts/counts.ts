/**
 * Reads of the rollout counters (schema.ts, kept by triggers): each is a primary-key range of at
 * most 16 stripes per status, so its cost does not grow with the cohort.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { STORED_REPORT_STATUSES, type StoredReportStatus } from '../update-reports/schema';

/** Both drivers answer a raw statement with `{ rows }`; drizzle's type does not say so. */
export async function rowsOf<T>(query: Promise<unknown>): Promise<T[]> {
  return ((await query) as { rows: T[] }).rows;
}

export type ReportCounts = Record<StoredReportStatus, number>;

export async function reportCounts(db: Executor, releaseId: string): Promise<ReportCounts> {
  const rows = await rowsOf<{ status: string; n: number | string }>(
    db.execute(sql`select status, sum(device_count) as n from release_report_counts where release_id = ${releaseId} group by status`),
  );
  const counts = Object.fromEntries(STORED_REPORT_STATUSES.map((status) => [status, 0])) as ReportCounts;
  for (const row of rows) if (row.status in counts) counts[row.status as StoredReportStatus] = Number(row.n);
  return counts;
}

/** Devices whose reported release is this one (devices.reported_release_prn). */
export async function devicesOnRelease(db: Executor, releasePrn: string): Promise<number> {
  const [row] = await rowsOf<{ n: number | string | null }>(db.execute(sql`select sum(device_count) as n from release_device_counts where release_prn = ${releasePrn}`));
  return Number(row?.n ?? 0);
}

export async function cohortDeviceCount(db: Executor, cohortId: string): Promise<number> {
  const [row] = await rowsOf<{ n: number | string | null }>(db.execute(sql`select sum(device_count) as n from cohort_device_counts where cohort_id = ${cohortId}`));
  return Number(row?.n ?? 0);
}

/** What `GET /releases/{prn}/rollout` reads fresh on every request. */
export interface RolloutSnapshot {
  cohortId: string;
  phaseValue: number | null;
  phaseMode: 'numeric' | 'tags';
  phaseClaimCount: number;
  disabled: boolean;
  /** As PostgreSQL writes it (microseconds kept: core/time.ts toRfc3339 reads it). */
  haltedAt: string | null;
  pausedAt: string | null;
  cancelledAt: string | null;
  haltFailureRatio: number | null;
  haltMinReports: number;
  soakSeconds: number | null;
  maxConcurrent: number | null;
  /** Live cap slots (updates/slot-claims.ts). */
  updatingNow: number;
  reported: ReportCounts;
  onRelease: number;
  cohortDevices: number;
  /** The cohort's chain stamp (release_chain_versions): it moves with every chain edit, a halt included. */
  chainStamp: string;
}

interface SnapshotRow {
  cohort_id: string;
  phase_value: number | null;
  phase_mode: 'numeric' | 'tags';
  phase_claim_count: number;
  disabled: boolean;
  halted_at: string | null;
  paused_at: string | null;
  cancelled_at: string | null;
  halt_failure_ratio: number | null;
  halt_min_reports: number;
  soak_seconds: number | null;
  max_concurrent: number | null;
  updating_now: number | string;
  reported: Record<string, number | string> | string | null;
  on_release: number | string;
  cohort_devices: number | string;
  chain_stamp: number | string | null;
}

/**
 * The release's rollout fields, its report counts, the devices on it, its cohort's size and
 * chain stamp, in one statement (one round trip: the progress read is as cheap as the release's
 * own read plus a few counter stripes). Null when the organization has no such release.
 */
export async function rolloutSnapshot(db: Executor, organizationId: string, releaseId: string, releasePrn: string): Promise<RolloutSnapshot | null> {
  const [row] = await rowsOf<SnapshotRow>(
    db.execute(sql`
      select r.cohort_id, r.phase_value, r.phase_mode, r.phase_claim_count, r.disabled, r.halted_at::text as halted_at, r.paused_at::text as paused_at, r.cancelled_at::text as cancelled_at, r.halt_failure_ratio, r.halt_min_reports, r.soak_seconds, r.max_concurrent,
        (select count(*) from update_slots where release_id = r.id and expires_at > now()) as updating_now,
        (select json_object_agg(s.status, s.n) from (select status, sum(device_count) as n from release_report_counts where release_id = r.id group by status) s) as reported,
        (select coalesce(sum(device_count), 0) from release_device_counts where release_prn = ${releasePrn}) as on_release,
        (select coalesce(sum(device_count), 0) from cohort_device_counts where cohort_id = r.cohort_id) as cohort_devices,
        (select version from release_chain_versions where cohort_id = r.cohort_id) as chain_stamp
      from releases r where r.id = ${releaseId} and r.organization_id = ${organizationId}`),
  );
  if (!row) return null;
  const stored = typeof row.reported === 'string' ? (JSON.parse(row.reported) as Record<string, number>) : (row.reported ?? {});
  const reported = Object.fromEntries(STORED_REPORT_STATUSES.map((status) => [status, Number(stored[status] ?? 0)])) as ReportCounts;
  return {
    cohortId: row.cohort_id,
    phaseValue: row.phase_value === null ? null : Number(row.phase_value),
    phaseMode: row.phase_mode,
    phaseClaimCount: Number(row.phase_claim_count),
    disabled: row.disabled,
    haltedAt: row.halted_at,
    pausedAt: row.paused_at,
    cancelledAt: row.cancelled_at,
    haltFailureRatio: row.halt_failure_ratio === null ? null : Number(row.halt_failure_ratio),
    haltMinReports: Number(row.halt_min_reports),
    soakSeconds: row.soak_seconds === null ? null : Number(row.soak_seconds),
    maxConcurrent: row.max_concurrent === null ? null : Number(row.max_concurrent),
    updatingNow: Number(row.updating_now),
    reported,
    onRelease: Number(row.on_release),
    cohortDevices: Number(row.cohort_devices),
    chainStamp: String(row.chain_stamp ?? 0),
  };
}
