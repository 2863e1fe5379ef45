/**
 * Success after a soak (site/docs/canopy-core/guides/rolling-out-safely.md, "Success after a
 * soak"): on a release with `soak_seconds`, a device's `installed` starts its soak; it is
 * confirmed by its first `healthy` report at least that long after, and a `failed` or
 * `rolled_back` before then is a soak failure. The health gate, progress and the console count
 * confirmed devices as succeeded; without a soak, `installed` is success as before. Pure: the
 * report statement (update-reports/report-writes.ts) does the same in SQL, and
 * test/api/soak.test.ts checks the two agree on every case.
 */
import type { StoredReportStatus, UpdateReportStatus } from '../update-reports/schema';

/** The longest soak a release may set: 30 days. */
export const MAX_SOAK_SECONDS = 30 * 86_400;

/** The latest report row of a device for a release, as the soak reads it. */
export interface SoakRow {
  status: StoredReportStatus;
  /** When the row became `installed` (ms since epoch); kept while it is installed or confirmed. */
  soakStartedAt: number | null;
}

/** What a report did to the device's soak: null when it had nothing to do with one. */
export type SoakOutcome = 'soaking' | 'passed' | 'failed' | null;

const FAILURES: ReadonlySet<UpdateReportStatus> = new Set(['failed', 'rolled_back']);
const FINISHED: ReadonlySet<StoredReportStatus> = new Set(['installed', 'confirmed', 'failed', 'rolled_back']);

const soaks = (soakSeconds: number | null): soakSeconds is number => soakSeconds !== null && soakSeconds > 0;

/** The row after `reported` arrives at `now` (null: no row, as a `healthy` report never makes one). */
export function afterReport(row: SoakRow | null, reported: UpdateReportStatus, soakSeconds: number | null, now: number): { row: SoakRow | null; outcome: SoakOutcome } {
  const soaking = row !== null && row.status === 'installed' && soaks(soakSeconds);
  if (reported === 'healthy') {
    if (!soaking) return { row, outcome: null };
    const passed = row.soakStartedAt !== null && now - row.soakStartedAt >= soakSeconds * 1000;
    return passed ? { row: { ...row, status: 'confirmed' }, outcome: 'passed' } : { row, outcome: 'soaking' };
  }
  // A deferral never replaces a finished report (a confirmed one included).
  if (reported === 'deferred' && row !== null && FINISHED.has(row.status)) return { row, outcome: null };
  // A repeated `installed` keeps the soak's start, and a confirmed device stays confirmed.
  if (reported === 'installed' && row !== null && (row.status === 'installed' || row.status === 'confirmed')) return { row, outcome: null };
  const next: SoakRow = { status: reported, soakStartedAt: reported === 'installed' ? now : null };
  return { row: next, outcome: soaking && FAILURES.has(reported) ? 'failed' : null };
}

/** A release's latest-report counts (release_report_counts) read as succeeded and still soaking. */
export interface OutcomeCounts {
  succeeded: number;
  soaking: number;
  failed: number;
  rolledBack: number;
}

export function outcomeCounts(reported: Record<'installed' | 'confirmed' | 'failed' | 'rolled_back', number>, soakSeconds: number | null): OutcomeCounts {
  const soak = soaks(soakSeconds);
  return {
    succeeded: reported.confirmed + (soak ? 0 : reported.installed),
    soaking: soak ? reported.installed : 0,
    failed: reported.failed,
    rolledBack: reported.rolled_back,
  };
}

/** Field problems of `soak_seconds` as it would be stored (422). */
export function soakSettingProblems(soakSeconds: number | null | undefined): { field: string; reason: string; allowed: string }[] {
  if (soakSeconds === null || soakSeconds === undefined) return [];
  if (Number.isInteger(soakSeconds) && soakSeconds >= 1 && soakSeconds <= MAX_SOAK_SECONDS) return [];
  return [{ field: 'soak_seconds', reason: 'out_of_range', allowed: `null, or an integer 1..${MAX_SOAK_SECONDS}` }];
}
