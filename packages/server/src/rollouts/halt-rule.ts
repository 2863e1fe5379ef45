/**
 * The health gate's arithmetic (site/docs/canopy-core/guides/rolling-out-safely.md): a release
 * with `halt_failure_ratio` set halts once at least `halt_min_reports` devices have finished
 * (their latest report for it is installed, failed or rolled_back) and the failed share of those
 * finished devices reaches the ratio. Pure, so the edges are unit-tested without a database;
 * halt.ts applies it inside the report's transaction.
 */

export interface HaltSettings {
  /** null: the gate is off. Else 0 < ratio <= 1. */
  haltFailureRatio: number | null;
  /** Integer >= 1. */
  haltMinReports: number;
}

export interface FinishedCounts {
  installed: number;
  failed: number;
  rolledBack: number;
}

/** Decimals the ratio comparison keeps, so 0.2 of 10 failed out of 50 is 0.2 and not 0.19999. */
const EPSILON = 1e-12;

export function finishedTotal(counts: FinishedCounts): number {
  return counts.installed + counts.failed + counts.rolledBack;
}

/** (failed + rolled_back) / finished, or null before anything finished. */
export function failureRatio(counts: FinishedCounts): number | null {
  const total = finishedTotal(counts);
  return total === 0 ? null : (counts.failed + counts.rolledBack) / total;
}

export function shouldHalt(settings: HaltSettings, counts: FinishedCounts): boolean {
  if (settings.haltFailureRatio === null) return false;
  if (finishedTotal(counts) < settings.haltMinReports) return false;
  const ratio = failureRatio(counts);
  return ratio !== null && ratio + EPSILON >= settings.haltFailureRatio;
}

/** Field problems of the gate's settings as they would be stored (422). */
export function haltSettingProblems(settings: HaltSettings): { field: string; reason: string; allowed: string }[] {
  const problems: { field: string; reason: string; allowed: string }[] = [];
  const ratio = settings.haltFailureRatio;
  if (ratio !== null && !(Number.isFinite(ratio) && ratio > 0 && ratio <= 1)) {
    problems.push({ field: 'halt_failure_ratio', reason: 'out_of_range', allowed: 'null, or 0 < x <= 1' });
  }
  if (!Number.isInteger(settings.haltMinReports) || settings.haltMinReports < 1) {
    problems.push({ field: 'halt_min_reports', reason: 'out_of_range', allowed: 'an integer >= 1' });
  }
  return problems;
}
