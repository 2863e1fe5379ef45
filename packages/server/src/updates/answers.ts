/**
 * The two answers of an update check: the admin API's flat object
 * `{status, source_type, source_prn, bundle_prn, manifest}` and the device API's
 * `{status, ...expanded}` (site/docs/canopy-core/tools/device-api.mdx).
 */
import { bundleOverrideToWire } from '../bundle-overrides/service';
import { bundles } from '../bundles/schema';
import { bundleSignaturesForDevice } from '../bundle-signatures/service';
import { cohortToWire } from '../cohorts/service';
import { cohorts } from '../cohorts/schema';
import type { Executor } from '../db/connection';
import { organizationPrn, resourcePrn } from '../core/prn';
import { timestampsOf } from '../http/wire-fields';
import type { Platform } from '../platform';
import { eq } from 'drizzle-orm';
import { toAdminManifestEntry } from '../binaries/admin-manifest';
import { manifestForBundleCached } from '../binaries/manifest';
import type { ManifestEntry } from '../binaries/manifest-schemas';
import type { AdminUpdateAnswer, DeviceUpdateAnswer } from './api-schemas';
import type { LoadedCheck, ReportedState } from './inputs';
import { withDeltas } from '../deltas/manifest-deltas';
import type { ResolutionResult } from './core/resolution-types';
import type { CheckDevice } from './check-state';
import { releaseToWire } from '../releases/wire';

export const UPDATE_EXPANSIONS = ['source_type', 'release', 'bundle', 'bundle_override', 'cohort', 'manifest'] as const;
export type UpdateExpansion = (typeof UPDATE_EXPANSIONS)[number];

function sourcePrn(organizationId: string, result: ResolutionResult): string | null {
  if (result.sourceType === 'release' && result.releaseId) return resourcePrn(organizationId, 'release', result.releaseId);
  if (result.sourceType === 'bundle_override' && result.overrideId) return resourcePrn(organizationId, 'bundle_override', result.overrideId);
  return null;
}

async function manifestOf(db: Executor, platform: Platform, device: CheckDevice, result: ResolutionResult): Promise<ManifestEntry[] | null> {
  if (result.status !== 'update' || result.bundleId === null) return null;
  return manifestForBundleCached(db, platform, device.organizationId, result.bundleId, device.target);
}

export async function adminAnswer(db: Executor, platform: Platform, device: CheckDevice, result: ResolutionResult): Promise<AdminUpdateAnswer> {
  return {
    status: result.status,
    source_type: result.sourceType,
    source_prn: sourcePrn(device.organizationId, result),
    bundle_prn: result.bundleId === null ? null : resourcePrn(device.organizationId, 'bundle', result.bundleId),
    manifest: (await manifestOf(db, platform, device, result))?.map(toAdminManifestEntry) ?? null,
    ...(result.retryAfterSeconds === null ? {} : { retry_after: result.retryAfterSeconds }),
  };
}

async function bundleWire(db: Executor, bundleId: string, target: string | null) {
  const [[row], signatures] = await Promise.all([db.select().from(bundles).where(eq(bundles.id, bundleId)), bundleSignaturesForDevice(db, bundleId, target)]);
  if (!row) return null;
  return {
    prn: resourcePrn(row.organizationId, 'bundle', row.id),
    organization_prn: organizationPrn(row.organizationId),
    name: row.name,
    ...timestampsOf(row),
    signatures,
  };
}

/** Only the expansions asked for are loaded; an absent source answers null for each. */
export async function deviceAnswer(db: Executor, platform: Platform, device: CheckDevice, loaded: LoadedCheck, result: ResolutionResult, expand: ReadonlySet<UpdateExpansion>, reported: ReportedState = {}): Promise<DeviceUpdateAnswer> {
  const answer: DeviceUpdateAnswer = { status: result.status };
  if (result.retryAfterSeconds !== null) answer.retry_after = result.retryAfterSeconds;
  if (expand.has('source_type')) answer.source_type = result.sourceType;
  if (expand.has('release')) {
    const release = result.releaseId === null ? null : loaded.releaseRow(result.releaseId);
    answer.release = release ? releaseToWire(release) : null;
  }
  if (expand.has('bundle')) answer.bundle = result.bundleId === null ? null : await bundleWire(db, result.bundleId, device.target);
  if (expand.has('bundle_override')) {
    const override = loaded.overrides.find((row) => row.id === result.overrideId);
    answer.bundle_override = override ? bundleOverrideToWire(override) : null;
  }
  if (expand.has('cohort')) {
    const [cohort] = device.cohortId === null ? [] : await db.select().from(cohorts).where(eq(cohorts.id, device.cohortId));
    answer.cohort = cohort ? cohortToWire(cohort) : null;
  }
  if (expand.has('manifest')) {
    const manifest = await manifestOf(db, platform, device, result);
    answer.manifest = manifest && (await withDeltas(db, platform, device.organizationId, reported, manifest));
  }
  return answer;
}

/** The explanation with prns instead of ids, for `GET /devices/{prn}/update/explain`. */
export function explanationToWire(organizationId: string, result: ResolutionResult) {
  return result.explanation.map((step) => ({
    step: step.step,
    outcome: step.outcome,
    reason: step.reason,
    subject_prn: step.subject ? resourcePrn(organizationId, step.subject.type, step.subject.id) : null,
    detail: step.detail ?? {},
  }));
}
