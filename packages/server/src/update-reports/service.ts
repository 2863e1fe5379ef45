/**
 * Device update reports (`POST /update/reports` on the device API): what the daemon says about an
 * install as it happens. One statement (report-writes.ts) checks the report, records the
 * `device.update_reported` event and upserts the device's latest report for that release
 * (schema.ts), so the two never disagree and a refused report writes nothing; it also proves the
 * request's admission on a kept-alive connection, as the update check's write does. A report that
 * could cross its release's health gate is written instead in a transaction that applies the
 * gate (rollouts/halt.ts) and, for a failure, counts it in the penalty box (rollouts/penalty-box.ts).
 *
 * Decisions the contract left open (written down in the device API reference,
 * site/docs/canopy-core/tools/device-api.mdx):
 * - A report's `prn` is its event's prn: every report is exactly one event, so no second name.
 * - The release and bundle must be the organization's own (else 422 naming the field); the bundle
 *   need not be the release's, because a device reports what it was offered, and a release's
 *   bundle is the server's business to cross-check when it counts, not the device's to prove.
 * - `healthy` (during a release's soak) never makes a row: it confirms an installed one once the
 *   soak is over, and is recorded as its event otherwise (rollouts/soak-rule.ts).
 * - `reason` is required for failed and rolled_back, and kept (trimmed to nothing is refused) for
 *   the others when sent; `progress` is stored as sent (0..1) and null when absent.
 */
import type { DeviceRow } from '../devices/schema';
import { deviceToWire } from '../devices/service';
import type { AuthenticatedDevice } from '../http/device-request';
import { invalidField, type ApiError } from '../http/errors';
import { resourceIdFromPrn, resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import type { Executor } from '../db/connection';
import { applyHealthGate } from '../rollouts/halt';
import { countFailure } from '../rollouts/penalty-box';
import { freeSlot } from '../updates/slot-claims';
import { writeReport, type ReportOutcome, type ReportWrite } from './report-writes';
import type { UpdateReportStatus } from './schema';
import type { SoakOutcome } from '../rollouts/soak-rule';

export interface UpdateReportInput {
  status: UpdateReportStatus;
  release_prn: string | null;
  bundle_prn: string;
  progress?: number | null;
  reason?: string | null;
}

export interface UpdateReportWire {
  prn: string;
  device_prn: string;
  status: UpdateReportStatus;
  release_prn: string | null;
  bundle_prn: string;
  progress: number | null;
  reason: string | null;
  inserted_at: string;
  /** What the report did to the device's soak of the release (rollouts/soak-rule.ts); null: nothing. */
  soak: SoakOutcome;
}

const FINISHED: ReadonlySet<UpdateReportStatus> = new Set(['installed', 'failed', 'rolled_back']);
/** Reports after which the device no longer updates the release now: its cap place is free. */
const FREES_SLOT: ReadonlySet<UpdateReportStatus> = new Set(['installed', 'failed', 'rolled_back', 'deferred']);
const NEEDS_REASON: ReadonlySet<UpdateReportStatus> = new Set(['failed', 'rolled_back']);
/** Also need a reason, without counting as a failure. */
const EXPLAINED: ReadonlySet<UpdateReportStatus> = new Set([...NEEDS_REASON, 'deferred']);

/** The write of `input` by the device `row` (as admitted, or as its guard will prove). */
function reportWrite(row: DeviceRow, input: UpdateReportInput, releaseId: string | null, guard: ReportWrite['guard']): ReportWrite {
  const devicePrn = resourcePrn(row.organizationId, 'device', row.id);
  const progress = input.progress ?? null;
  const reason = input.reason ?? null;
  return {
    deviceId: row.id,
    organizationId: row.organizationId,
    devicePrn,
    releaseId,
    bundleId: resourceIdFromPrn(input.bundle_prn, 'bundle', row.organizationId),
    status: input.status,
    progress,
    reason,
    data: { device: deviceToWire(row), release: input.release_prn, bundle: input.bundle_prn, status: input.status, progress, reason },
    soakData: soakEventData(row, input, reason),
    guard,
  };
}

/** The data of the soak event `input` would record if it ends a soak (report-writes.ts decides whether it does). */
function soakEventData(row: DeviceRow, input: UpdateReportInput, reason: string | null): Record<string, unknown> | null {
  if (input.release_prn === null) return null;
  const base = { device: deviceToWire(row), release: input.release_prn, bundle: input.bundle_prn };
  if (input.status === 'healthy') return base;
  return NEEDS_REASON.has(input.status) ? { ...base, status: input.status, reason } : null;
}

function refusal(outcome: Exclude<ReportOutcome['kind'], 'written' | 'not_admitted' | 'may_halt'>): ApiError {
  return outcome === 'release_not_found' ? invalidField('release_prn', 'not_found') : invalidField('bundle_prn', 'not_found');
}

export async function recordUpdateReport(db: Executor, device: AuthenticatedDevice, input: UpdateReportInput): Promise<UpdateReportWire> {
  let row = device.row;
  // A later request on a kept-alive connection: its admission is proven by the report's own
  // statement (or, failing that, made the full way: a 401 when refused) before any answer.
  let admission = device.admission;
  const admitted = async () => {
    if (admission) row = await admission.confirm();
    admission = null;
  };
  const reason = input.reason ?? null;
  if (EXPLAINED.has(input.status) && reason === null) {
    await admitted();
    throw invalidField('reason', 'required', { status: input.status });
  }
  for (;;) {
    const releaseId = input.release_prn === null ? null : resourceIdFromPrn(input.release_prn, 'release', row.organizationId);
    if (input.release_prn !== null && releaseId === null) {
      await admitted();
      throw invalidField('release_prn', 'not_found');
    }
    const write = reportWrite(row, input, releaseId, admission?.guard ?? null);
    // A failure of a release counts in its penalty box (rollouts/penalty-box.ts) in the report's transaction.
    const failure = releaseId !== null && NEEDS_REASON.has(input.status);
    // Inside a caller's transaction, straight to the gated write (the statement groups are not in it).
    let outcome: ReportOutcome = 'rollback' in db || failure ? { kind: 'may_halt' } : await writeReport(db, write);
    if (outcome.kind === 'may_halt') {
      // A finished install on a gated release: written again, alone, in a transaction that
      // applies the gate under the release row's lock (rollouts/halt.ts).
      outcome = await db.transaction(async (tx) => {
        const written = await writeReport(tx, write);
        // A healthy report that ends a soak adds a success, which may bring the finished count to halt_min_reports.
        const finishes = FINISHED.has(input.status) || (written.kind === 'written' && written.soak === 'passed');
        if (written.kind === 'written' && releaseId !== null && finishes) await applyHealthGate(tx, releaseId, write.devicePrn);
        if (written.kind === 'written' && failure) await countFailure(tx, releaseId!, row.id, new Date());
        return written;
      });
    }
    if (outcome.kind === 'not_admitted') {
      await admitted();
      continue;
    }
    if (outcome.kind === 'release_not_found' || outcome.kind === 'bundle_not_found') throw refusal(outcome.kind);
    if (outcome.kind !== 'written') throw new Error(`update report: unexpected ${outcome.kind}`);
    // A finished (or deferred) device gives its concurrency cap place to the next (updates/slot-claims.ts).
    if (releaseId !== null && FREES_SLOT.has(input.status)) await freeSlot(db, releaseId, row.id);
    return {
      prn: resourcePrn(row.organizationId, 'event', outcome.eventId),
      device_prn: write.devicePrn,
      status: input.status,
      release_prn: input.release_prn,
      bundle_prn: input.bundle_prn,
      progress: write.progress,
      reason: write.reason,
      inserted_at: toRfc3339(outcome.insertedAt),
      soak: outcome.soak,
    };
  }
}
