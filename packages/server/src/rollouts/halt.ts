/**
 * The health gate, applied by the device report that finishes an install (installed, failed,
 * rolled_back) inside that report's transaction (update-reports/service.ts): when the release's
 * counts cross the line (halt-rule.ts) it is disabled, `halted_at` set, the cohort's chain stamp
 * moved (so every server's update checks see the release disabled at once: updates/chain-cache.ts)
 * and a `release.halted` event recorded, which webhooks may subscribe to.
 *
 * Exactly once across server processes: the report first locks the release row
 * (`for no key update`, which does not conflict with the key-share lock its own report row's
 * foreign key took, so two reporters never deadlock), then reads the counters. Reports of one
 * gated release therefore finish one after the other, and each sees the counts every earlier one
 * committed: the one that crosses the line halts, and the ones after it find `halted_at` set.
 * A release without a gate, or already disabled or halted, takes no lock at all. On a release
 * with a soak, the healthy report that confirms a device comes here too: it adds a success.
 *
 * Every report that could cross the line comes here: the grouped report statement refuses a
 * finished install on a gated release (update-reports/report-writes.ts `may_halt`), which is then
 * written again in this transaction: every report that can halt still writes its row, then
 * takes the lock, then reads the counters.
 */
import { sql } from 'drizzle-orm';
import { resourcePrn } from '../core/prn';
import type { Executor } from '../db/connection';
import { recordEvent } from '../events/service';
import { reportCounts, rowsOf } from './counts';
import { failureRatio, shouldHalt, type FinishedCounts } from './halt-rule';
import { outcomeCounts } from './soak-rule';

interface GatedRelease {
  id: string;
  organization_id: string;
  cohort_id: string;
  halt_failure_ratio: number;
  halt_min_reports: number;
  soak_seconds: number | null;
}

export interface HaltOutcome {
  releaseId: string;
  counts: FinishedCounts;
}

/** Returns what was halted, or null when the release stays as it is. */
export async function applyHealthGate(tx: Executor, releaseId: string, actorPrn: string | null): Promise<HaltOutcome | null> {
  const [release] = await rowsOf<GatedRelease>(
    tx.execute(sql`
      select id, organization_id, cohort_id, halt_failure_ratio, halt_min_reports, soak_seconds from releases
      where id = ${releaseId} and halt_failure_ratio is not null and halted_at is null and not disabled
      for no key update`),
  );
  if (!release) return null;
  const all = await reportCounts(tx, releaseId);
  // With a soak, only confirmed devices count as succeeded; those still soaking are not finished (soak-rule.ts).
  const outcome = outcomeCounts(all, release.soak_seconds === null ? null : Number(release.soak_seconds));
  const counts: FinishedCounts = { installed: outcome.succeeded, failed: outcome.failed, rolledBack: outcome.rolledBack };
  const settings = { haltFailureRatio: Number(release.halt_failure_ratio), haltMinReports: Number(release.halt_min_reports) };
  if (!shouldHalt(settings, counts)) return null;

  await tx.execute(sql`update releases set disabled = true, halted_at = now(), updated_at = now() where id = ${releaseId}`);
  await tx.execute(sql`
    insert into release_chain_versions (cohort_id, version) values (${release.cohort_id}, 1)
    on conflict (cohort_id) do update set version = release_chain_versions.version + 1`);
  const prn = resourcePrn(release.organization_id, 'release', releaseId);
  await recordEvent(tx, {
    organizationId: release.organization_id,
    type: 'release',
    subtype: 'halted',
    actorPrn,
    resourcePrn: prn,
    data: {
      release: prn,
      halt_failure_ratio: settings.haltFailureRatio,
      halt_min_reports: settings.haltMinReports,
      installed: counts.installed,
      soaking: outcome.soaking,
      failed: counts.failed,
      rolled_back: counts.rolledBack,
      failure_ratio: failureRatio(counts),
    },
  });
  return { releaseId, counts };
}
