/**
 * The update check: the single entry point for the device API (`GET /update`) and the admin API
 * (`POST /devices/{prn}/update`, `GET /devices/{prn}/update/explain`).
 *
 *   const check = await checkForUpdate(platform, device, { releasePrn, bundlePrn, releaseVersion },
 *                                      { write: true, actorPrn: devicePrn });
 *   reply.send(await check.deviceAnswer(expand));   // or check.adminAnswer()
 *
 * One statement (no transaction round trips), shared with the checks finishing at the same time
 * (check-writes.ts), writes the phase claim (if one is due), its events, their webhook outbox rows
 * and the write of the reported state, so a claim exists exactly when `device.claimed_release`
 * does (recordCheck). Bundle signing state and manifests come from a short-lived snapshot
 * (binaries/manifest.ts, staleness <= 1 s for a bundle that stops being distributable; one that
 * becomes distributable is seen at once).
 * Events (site/docs/canopy-core/reference/integration-management/events.mdx):
 * `device.checked_for_release` on every check, `device.claimed_release` when a slot is taken,
 * `device.release_changed` when `write` changes the device's reported release or bundle.
 */
import type { Database } from '../db/connection';
import type { NewEvent } from '../events/service';
import { resourcePrn } from '../core/prn';
import type { Platform } from '../platform';
import type { CheckDevice, CheckState } from './check-state';
import type { GuardedAdmission, PendingConnectionWrites } from '../admission/port';
import { writeCheck, type ReportedUpdate } from './check-writes';
import { bundleObject, deviceObject, idOf, loadSubjects, releaseObject, reportedBundle, reportedRelease, type SubjectLookup } from './event-subjects';
import type { Claim } from './phase-claims';
import { freeSlot, takeSlot } from './slot-claims';
import { slotRefused } from './core/concurrency-rule';
import type { ResolutionResult } from './core/resolution-types';
import { adminAnswer, deviceAnswer, explanationToWire, type UpdateExpansion } from './answers';
import { chainRelease, loadCheck, ownReportedState, resolveWithLookups, type LoadedCheck, type ReportedState } from './inputs';

export type { ReportedState } from './inputs';
export { UPDATE_EXPANSIONS, type UpdateExpansion } from './answers';

export interface CheckOptions {
  /** Store the reported state on the device (default false). */
  write?: boolean;
  /** Who asked: the API key's actor prn, or the device's own prn on the device API. */
  actorPrn: string | null;
  now?: Date;
  /** The device's check state read with its row (readDeviceWithCheckState); used by the first attempt only. */
  state?: CheckState;
  /**
   * The device API's deferred writes of the device's new connection (check-writes.ts): the
   * check's statement records them, and sets `recorded`, so they cost no commit of their own.
   */
  connection?: PendingConnectionWrites;
  /**
   * The device API's admission of the request, left for the check's write to prove
   * (admission/port.ts AdmissionGuard): the check resolves on the row the connection last
   * read (or, on a reconnecting device's new connection, the row this process last admitted) and
   * keeps its events, the connection's included, only where the guard holds. When it does not,
   * or when the check would write more than events, `confirm` admits the device the full way (it
   * throws the 401 when the device is refused) and the check resolves again on the row it read.
   */
  admission?: GuardedAdmission<CheckDevice>;
}

export interface UpdateCheck {
  result: ResolutionResult;
  adminAnswer(): Promise<Awaited<ReturnType<typeof adminAnswer>>>;
  deviceAnswer(expand: ReadonlySet<UpdateExpansion>): Promise<Awaited<ReturnType<typeof deviceAnswer>>>;
}

/** The slot the check counted on is gone (nothing of the check was written): resolve again. */
class SlotRefused extends Error {}

/** Resolutions that wanted a slot the phase no longer had; past this the release counts as full. */
const MAX_SLOT_RETRIES = 5;

const devicePrnOf = (device: CheckDevice) => resourcePrn(device.organizationId, 'device', device.id);

/**
 * `write`: the device now reports exactly what this check said (absent values become null).
 * Null when nothing changes (no write at all); else the device's new reported state and, when
 * the release or bundle changed, its `device.release_changed` event.
 */
function reportedChange(device: CheckDevice, reported: ReportedState, actorPrn: string | null, subjects: SubjectLookup): { update: ReportedUpdate; event: NewEvent | null } | null {
  const next = { releasePrn: reported.releasePrn ?? null, bundlePrn: reported.bundlePrn ?? null, releaseVersion: reported.releaseVersion ?? null };
  const same = next.releasePrn === device.reportedReleasePrn && next.bundlePrn === device.reportedBundlePrn && next.releaseVersion === device.reportedReleaseVersion;
  if (same) return null;
  const update = { deviceId: device.id, ...next };
  if (next.releasePrn === device.reportedReleasePrn && next.bundlePrn === device.reportedBundlePrn) return { update, event: null };
  const devicePrn = devicePrnOf(device);
  return {
    update,
    event: {
      organizationId: device.organizationId,
      type: 'device',
      subtype: 'release_changed',
      actorPrn,
      resourcePrn: devicePrn,
      // The public API's shapes (event-subjects.ts).
      data: {
        device: deviceObject(subjects, device),
        from_release: reportedRelease(subjects, device.organizationId, device.reportedReleasePrn, false),
        to_release: reportedRelease(subjects, device.organizationId, next.releasePrn, true),
        from_bundle: reportedBundle(subjects, device.organizationId, device.reportedBundlePrn, false),
        to_bundle: reportedBundle(subjects, device.organizationId, next.bundlePrn, true),
      },
    },
  };
}

function prnOrNull(organizationId: string, type: 'release' | 'bundle' | 'bundle_override', id: string | null): string | null {
  return id === null ? null : resourcePrn(organizationId, type, id);
}

function checkedData(device: CheckDevice, subjects: SubjectLookup, reported: ReportedState, result: ResolutionResult) {
  const org = device.organizationId;
  return {
    device: deviceObject(subjects, device),
    status: result.status,
    source_type: result.sourceType,
    release: releaseObject(subjects, org, result.releaseId),
    bundle: bundleObject(subjects, org, result.bundleId),
    bundle_override: prnOrNull(org, 'bundle_override', result.overrideId),
    reported: { release_prn: reported.releasePrn ?? null, bundle_prn: reported.bundlePrn ?? null, release_version: reported.releaseVersion ?? null },
  };
}

/**
 * The check's writes (check-writes.ts: one autocommit statement, shared with the checks that
 * finish at the same time): `device.checked_for_release`, the `write` of the reported state and
 * its `device.release_changed`, their webhook outbox rows, and with a claim the claim row, its
 * slot and `device.claimed_release`, all kept only when the slot is granted (SlotRefused when not).
 * With a guarded admission, `unconfirmed` when nothing was written because the guard did not
 * hold, or because the check writes more than events (a guard proves events only).
 */
/** What recordCheck takes of the check's options, as they stand at this attempt. */
type RecordOptions = Pick<CheckOptions, 'write' | 'actorPrn' | 'connection' | 'admission'>;

async function recordCheck(db: Database, device: CheckDevice, reported: ReportedState, result: ResolutionResult, claim: Claim | null, options: RecordOptions): Promise<'written' | 'unconfirmed'> {
  const devicePrn = devicePrnOf(device);
  const org = device.organizationId;
  const subjects = await loadSubjects(db, org, {
    device: [device.id],
    cohort: [device.cohortId],
    release: [result.releaseId, ...(options.write ? [idOf(device.reportedReleasePrn, 'release', org), idOf(reported.releasePrn, 'release', org)] : [])],
    bundle: [result.bundleId, ...(options.write ? [idOf(reported.bundlePrn, 'bundle', org)] : [])],
  });
  const checked: NewEvent = {
    organizationId: device.organizationId,
    type: 'device',
    subtype: 'checked_for_release',
    actorPrn: options.actorPrn,
    resourcePrn: devicePrn,
    data: checkedData(device, subjects, reported, result),
  };
  const change = options.write ? reportedChange(device, reported, options.actorPrn, subjects) : null;
  const claimed: NewEvent | null =
    claim === null
      ? null
      : {
          organizationId: device.organizationId,
          type: 'device',
          subtype: 'claimed_release',
          actorPrn: options.actorPrn,
          resourcePrn: devicePrn,
          data: { device: deviceObject(subjects, device), release: resourcePrn(device.organizationId, 'release', claim.releaseId), cohort: resourcePrn(device.organizationId, 'cohort', claim.cohortId) },
        };
  // Carried by the first attempt's statement only: kept whatever becomes of its claim.
  const connection = options.connection && !options.connection.recorded ? options.connection : null;
  const guard = options.admission?.guard ?? null;
  if (guard && (change || claimed || connection?.writes.touch)) return 'unconfirmed';
  const outcome = await writeCheck(db, {
    deviceId: device.id,
    // The connection's event names the device as the check's own events do (the row it resolved on).
    connection: connection ? { ...connection.writes, event: { ...connection.writes.event, data: { ...connection.writes.event.data, device: deviceObject(subjects, device) } } } : null,
    events: change?.event ? [checked, change.event] : [checked],
    deviceUpdate: change?.update ?? null,
    claim: claim && claimed ? { claim, event: claimed } : null,
    guard,
  });
  if (outcome === 'not_admitted') return 'unconfirmed';
  if (connection) connection.recorded = true;
  if (outcome === 'slot_refused') throw new SlotRefused();
  return 'written';
}

/** The claim resolution asks for, with the phase value it decided with. */
function claimOf(device: CheckDevice, loaded: LoadedCheck, result: ResolutionResult): Claim | null {
  if (result.claim === null || device.cohortId === null) return null;
  const releaseId = result.claim.releaseId;
  const phaseValue = chainRelease(loaded.input, releaseId)?.phaseValue ?? null;
  return { releaseId, deviceId: device.id, cohortId: device.cohortId, organizationId: device.organizationId, phaseValue };
}

/** The input with the releases in `lost` answering as full. */
function withLostSlots(input: LoadedCheck['input'], lost: ReadonlySet<string>): LoadedCheck['input'] {
  const fresh = input.phaseClaims;
  return { ...input, phaseClaims: (id: string) => (lost.has(id) ? { ...fresh(id), claimCount: Number.POSITIVE_INFINITY } : fresh(id)) };
}

export async function checkForUpdate(platform: Platform, asked: CheckDevice, reportedAsSent: ReportedState, options: CheckOptions): Promise<UpdateCheck> {
  const { db } = platform;
  const now = options.now ?? platform.now?.() ?? new Date();
  // The device as the check resolves on it, and the admission its write is still to prove.
  let device = asked;
  let admission = options.admission;
  let actorPrn = options.actorPrn;
  // Releases whose slot this check lost MAX_SLOT_RETRIES times: it answers as if they were full
  // rather than loop (the state re-read after each loss almost always shows them full anyway).
  const lost = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    // Against the device this attempt resolves on (a confirmed admission may name another).
    const reported = ownReportedState(device.organizationId, reportedAsSent);
    const loaded = await loadCheck(db, device, reported, now, attempt === 1 ? options.state : undefined, platform.config.capRetrySeconds);
    const input = lost.size === 0 ? loaded.input : withLostSlots(loaded.input, lost);
    let result = await resolveWithLookups(db, input, device.target);
    // A capped release's place is taken before anything is written (slot-claims.ts): refused, the
    // device is told to come back later, and that is what the check records.
    const slot = result.slot;
    if (slot !== null && !(await takeSlot(db, { releaseId: slot.releaseId, deviceId: device.id, organizationId: device.organizationId }))) {
      result = slotRefused(result, device.id, platform.config.capRetrySeconds);
    }
    const claim = claimOf(device, loaded, result);
    try {
      // A literal of one shape, not a spread of the options: spreading them and redefining two
      // keys took V8's slow path, 1.8% of the device API's CPU.
      const recording: RecordOptions = { write: options.write, actorPrn, connection: options.connection, admission };
      if ((await recordCheck(db, device, reported, result, claim, recording)) === 'unconfirmed') {
        // Admitted the full way (or refused by a throw), then resolved again on the row it read.
        const confirmed = await admission!.confirm();
        // A device asking for itself stays its own actor, also as the device its certificate names now.
        if (actorPrn === devicePrnOf(device)) actorPrn = devicePrnOf(confirmed);
        device = confirmed;
        admission = undefined;
        continue;
      }
    } catch (error) {
      // Whatever failed, a cap place this attempt took is not kept for an offer never made.
      if (slot !== null && result.slot !== null) await freeSlot(db, slot.releaseId, device.id);
      if (!(error instanceof SlotRefused) || claim === null) throw error;
      // Another check took the last slot (or the phase changed): resolve again from fresh state.
      if (attempt >= MAX_SLOT_RETRIES) lost.add(claim.releaseId);
      continue;
    }
    const answered = input === loaded.input ? loaded : { ...loaded, input };
    return {
      result,
      adminAnswer: () => adminAnswer(db, platform, device, result),
      deviceAnswer: (expand) => deviceAnswer(db, platform, device, answered, result, expand, reported),
    };
  }
}

/**
 * Why the device gets what it gets, step by step. Read-only: it takes no claim and records no
 * event, so "phase_slot_available" means a check now would take a slot.
 */
export async function explainUpdate(platform: Platform, device: CheckDevice, reported: ReportedState, now = platform.now?.() ?? new Date()) {
  const loaded = await loadCheck(platform.db, device, ownReportedState(device.organizationId, reported), now, undefined, platform.config.capRetrySeconds);
  const result = await resolveWithLookups(platform.db, loaded.input, device.target);
  const latest = loaded.input.chain.at(-1);
  return {
    status: result.status,
    source_type: result.sourceType,
    release_prn: result.releaseId === null ? null : resourcePrn(device.organizationId, 'release', result.releaseId),
    bundle_prn: result.bundleId === null ? null : resourcePrn(device.organizationId, 'bundle', result.bundleId),
    bundle_override_prn: result.overrideId === null ? null : resourcePrn(device.organizationId, 'bundle_override', result.overrideId),
    would_claim: result.claim !== null,
    would_take_slot: result.slot !== null,
    retry_after: result.retryAfterSeconds,
    // The fleet-wide "why not" of the cohort's latest release (rollouts/routes.ts).
    rollout_path: latest === undefined ? null : `/releases/${resourcePrn(device.organizationId, 'release', latest.id)}/rollout`,
    steps: explanationToWire(device.organizationId, result),
  };
}
