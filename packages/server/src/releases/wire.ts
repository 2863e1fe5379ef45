/** A release as the admin API shows it. */
import { organizationPrn, resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import { timestampsOf } from '../http/wire-fields';
import type { ReleaseRow } from './chain-store';
import { isScheduledInFuture, phaseTypeOf } from './release-rules';

export type ReleaseWithPrevious = ReleaseRow & { previousReleaseId: string | null };

export function releaseToWire(row: ReleaseWithPrevious, now = new Date()) {
  const prn = (type: 'release' | 'bundle' | 'cohort', id: string | null) => (id === null ? null : resourcePrn(row.organizationId, type, id));
  return {
    prn: resourcePrn(row.organizationId, 'release', row.id),
    organization_prn: organizationPrn(row.organizationId),
    bundle_prn: prn('bundle', row.bundleId)!,
    cohort_prn: prn('cohort', row.cohortId)!,
    name: row.name,
    description: row.description,
    required: row.required,
    disabled: row.disabled,
    schedule_date: toRfc3339(row.scheduleDate),
    // Derived: the schedule is complete once its date has passed (or when there is none).
    schedule_complete: !isScheduledInFuture(row, now),
    version: row.version,
    version_requirement: row.versionRequirement,
    phase_mode: row.phaseMode,
    phase_tags: row.phaseTags,
    phase_type: phaseTypeOf(row.phaseValue),
    phase_value: row.phaseValue,
    phase_claim_count: row.phaseClaimCount,
    halt_failure_ratio: row.haltFailureRatio,
    halt_min_reports: row.haltMinReports,
    halted_at: toRfc3339(row.haltedAt),
    paused_at: toRfc3339(row.pausedAt),
    cancelled_at: toRfc3339(row.cancelledAt),
    penalty_box: row.penaltyBox ?? null,
    maintenance_windows: row.maintenanceWindows ?? null,
    soak_seconds: row.soakSeconds ?? null,
    max_concurrent: row.maxConcurrent ?? null,
    slot_timeout_seconds: row.slotTimeoutSeconds ?? null,
    next_release_prn: prn('release', row.nextReleaseId),
    previous_release_prn: prn('release', row.previousReleaseId),
    ...timestampsOf(row),
  };
}

/** Rows of one chain (first to latest) with their predecessor filled in. */
export function withPrevious(chain: readonly ReleaseRow[]): ReleaseWithPrevious[] {
  return chain.map((row, index) => ({ ...row, previousReleaseId: index === 0 ? null : chain[index - 1].id }));
}
