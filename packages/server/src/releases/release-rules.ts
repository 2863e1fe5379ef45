/**
 * The rules a release's own fields and its place in the chain must follow (spec 2 sections 4-5,
 * site/docs/canopy-core/reference/bundle-management/releases.md), as pure functions so the service
 * can check an edit's outcome before writing it and the unit tests can cover every rule without a
 * database.
 */
import type { FieldProblem } from '../http/errors';
import { isPhased, PHASE_COUNT_MAX, PHASE_COUNT_MIN } from '../updates/core/phase';
import type { PhaseMode } from '../updates/core/resolution-types';
import { isValidRequirement, isValidVersion } from '../updates/core/version';

export interface ReleaseRuleFields {
  id: string;
  scheduleDate: string | null;
  phaseMode: PhaseMode;
  phaseValue: number | null;
  phaseTags: readonly string[] | null;
  version: string | null;
  versionRequirement: string | null;
}

/** `static` for a device count, `percent` for a fraction (1 = 100%), null when not set. */
export type PhaseType = 'static' | 'percent';

export function phaseTypeOf(phaseValue: number | null): PhaseType | null {
  if (phaseValue === null) return null;
  return phaseValue <= 1 ? 'percent' : 'static';
}

/** [0,1] or an integer 2..1,000,000,000; anything else has no meaning. */
export function isValidPhaseValue(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  if (value >= 0 && value <= 1) return true;
  return Number.isInteger(value) && value >= PHASE_COUNT_MIN && value <= PHASE_COUNT_MAX;
}

/** Field-level problems of a release as it would be stored (after defaults and the PATCH merge). */
export function releaseFieldProblems(release: Omit<ReleaseRuleFields, 'id' | 'scheduleDate'>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (release.version !== null && !isValidVersion(release.version)) problems.push({ field: 'version', reason: 'invalid_version' });
  if (release.versionRequirement !== null && !isValidRequirement(release.versionRequirement)) {
    problems.push({ field: 'version_requirement', reason: 'invalid_requirement' });
  }
  if (release.phaseValue !== null && !isValidPhaseValue(release.phaseValue)) {
    problems.push({ field: 'phase_value', reason: 'out_of_range', allowed: '0..1 (fraction) or an integer 2..1000000000 (devices)' });
  }
  if (release.phaseMode === 'tags') {
    if (release.phaseTags === null || release.phaseTags.length === 0) problems.push({ field: 'phase_tags', reason: 'required_in_tags_mode' });
    // In tags mode the value only says whether the phase is complete: null (phased) or 1 (done).
    if (release.phaseValue !== null && release.phaseValue !== 1) problems.push({ field: 'phase_value', reason: 'tags_mode_allows_only_1' });
  }
  if (release.phaseMode === 'numeric' && release.phaseValue === null) problems.push({ field: 'phase_value', reason: 'required_in_numeric_mode' });
  return problems;
}

export function isScheduledInFuture(release: Pick<ReleaseRuleFields, 'scheduleDate'>, now: Date): boolean {
  return release.scheduleDate !== null && new Date(release.scheduleDate).getTime() > now.getTime();
}

export type ChainRuleProblem = { reason: 'scheduled_not_latest' | 'phased_not_latest'; releaseId: string };

/**
 * "Only the latest may be scheduled in the future or phased": checked over a whole chain (first
 * to latest) after an edit. This one rule also refuses a new latest while the current latest is
 * still scheduled or phased (it would stop being the latest), and keeps one phased release per
 * cohort (only the latest can be phased).
 */
export function chainRuleProblem(chain: readonly ReleaseRuleFields[], now: Date): ChainRuleProblem | null {
  for (const release of chain.slice(0, -1)) {
    if (isScheduledInFuture(release, now)) return { reason: 'scheduled_not_latest', releaseId: release.id };
    if (isPhased(release)) return { reason: 'phased_not_latest', releaseId: release.id };
  }
  return null;
}

/** `phase_value` 1 completes the phase for good: the value can never change again. */
export function phaseValueFrozen(before: number | null, after: number | null): boolean {
  return before === 1 && after !== 1;
}
