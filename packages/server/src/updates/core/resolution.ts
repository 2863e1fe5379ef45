/**
 * Which bundle this device should run now (releases.md in the docs, "Resolution"): a pure
 * function of already-loaded data, so the device API, the admin update check and the explain
 * endpoint share it and every branch is testable without a database. It follows the contract
 * step by step and records each decision in `explanation`.
 *
 * Choices the contract leaves open (each also commented where it happens):
 * - Position uses the headers first, then the device's stored reported release/bundle, so a device
 *   that stops sending headers is not walked back to the first release (a downgrade).
 * - A bundle used by several releases positions the device at the latest of them (anything else
 *   would offer it an older release and loop).
 * - The backward walk never goes below the first release after the device's position: resolution
 *   never offers the release the device is on, nor an older one.
 * - The version a release's requirement is checked against is the `canopy-release-version` header,
 *   else the declared version of the release the device is positioned at.
 * - An override's bundle must be signed too; an override that cannot be delivered answers
 *   no_update rather than falling back to releases (the override pins the device).
 * - A claim is returned only with status `update`: a release rejected later (unsigned, already
 *   current) does not consume a slot.
 */
import { capDecision } from './concurrency-rule';
import { insideWindows, nextWindowStart } from './window-rule';
import { isPhased, phaseDecision } from './phase';
import type {
  ChainRelease,
  DeviceOverride,
  ExplainStep,
  ResolutionInput,
  ResolutionResult,
  ResolutionStatus,
} from './resolution-types';
import { compareVersions, matchesRequirement, parseRequirement, parseVersion, type Version } from './version';

export { isPhased, phaseSlots } from './phase';

function releaseSubject(release: ChainRelease): ExplainStep['subject'] {
  return { type: 'release', id: release.id };
}

function noUpdate(explanation: ExplainStep[], status: ResolutionStatus = 'no_update'): ResolutionResult {
  return { status, sourceType: null, releaseId: null, bundleId: null, overrideId: null, claim: null, slot: null, retryAfterSeconds: null, explanation };
}

function isActive(override: DeviceOverride, now: Date): boolean {
  return override.startsAt.getTime() <= now.getTime() && now.getTime() < override.endsAt.getTime();
}

/** Step 1: among active overrides the most recently started wins (ties: greatest id, to be stable). */
function chooseOverride(input: ResolutionInput, steps: ExplainStep[]): DeviceOverride | null {
  const active = input.overrides
    .filter((override) => isActive(override, input.now))
    .sort((a, b) => b.startsAt.getTime() - a.startsAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const winner = active[0] ?? null;
  for (const override of input.overrides) {
    const subject = { type: 'bundle_override' as const, id: override.id };
    if (override === winner) steps.push({ step: 'override', subject, outcome: 'taken', reason: 'override_active' });
    else if (active.includes(override)) steps.push({ step: 'override', subject, outcome: 'skipped', reason: 'override_superseded' });
    else steps.push({ step: 'override', subject, outcome: 'skipped', reason: 'override_not_active' });
  }
  return winner;
}

function resolveOverride(input: ResolutionInput, override: DeviceOverride, steps: ExplainStep[]): ResolutionResult {
  const subject = { type: 'bundle_override' as const, id: override.id };
  if (!input.bundleSigned(override.bundleId)) {
    steps.push({ step: 'bundle_signed', subject, outcome: 'skipped', reason: 'unsigned_binaries', detail: { bundle_id: override.bundleId } });
    return noUpdate(steps);
  }
  steps.push({ step: 'bundle_signed', subject, outcome: 'considered', reason: 'signed' });
  const reportedBundle = input.headers.bundleId ?? input.device.reportedBundleId;
  if (reportedBundle === override.bundleId) {
    steps.push({ step: 'already_current', subject, outcome: 'skipped', reason: 'already_current' });
    return noUpdate(steps);
  }
  steps.push({ step: 'already_current', subject, outcome: 'taken', reason: 'new_for_device' });
  return {
    status: 'update',
    sourceType: 'bundle_override',
    releaseId: null,
    bundleId: override.bundleId,
    overrideId: override.id,
    claim: null,
    slot: null,
    retryAfterSeconds: null,
    explanation: steps,
  };
}

interface Position {
  /** First chain index the device may move to; the forward walk starts and the backward walk ends here. */
  start: number;
  /** Index of the release the device runs, when known. */
  at: number | null;
  /** The device's version, for version requirements. */
  deviceVersion: Version | null;
}

function parseOptionalVersion(text: string | null | undefined): Version | null {
  return text === null || text === undefined ? null : parseVersion(text);
}

function satisfies(version: Version, release: ChainRelease): boolean {
  if (release.versionRequirement === null) return true;
  const requirement = parseRequirement(release.versionRequirement);
  return requirement !== null && matchesRequirement(version, requirement);
}

/** Step 2: release header (or stored release), else bundle, else version, else the first release. */
function findPosition(input: ResolutionInput, steps: ExplainStep[]): Position {
  const { chain, headers, device } = input;
  const headerVersion = parseOptionalVersion(headers.releaseVersion);
  const at = (index: number, reason: 'release_header' | 'bundle_header', source: string): Position => {
    steps.push({ step: 'position', subject: releaseSubject(chain[index]), outcome: 'taken', reason, detail: { source } });
    return { start: index + 1, at: index, deviceVersion: headerVersion ?? parseOptionalVersion(chain[index].version) };
  };

  const releaseId = headers.releaseId ?? device.reportedReleaseId;
  if (releaseId !== null && releaseId !== undefined) {
    const index = input.chainIndex ? (input.chainIndex.get(releaseId) ?? -1) : chain.findIndex((release) => release.id === releaseId);
    const source = headers.releaseId ? 'header' : 'stored';
    if (index !== -1) return at(index, 'release_header', source);
    // A release of another cohort (or unknown) says nothing about this chain: ignore it.
    steps.push({ step: 'position', outcome: 'skipped', reason: 'header_not_in_chain', detail: { header: 'release', source, release_id: releaseId } });
  }

  const bundleId = headers.bundleId ?? device.reportedBundleId;
  if (bundleId !== null && bundleId !== undefined) {
    // The latest release with that bundle: the device already has everything up to it.
    let index = -1;
    for (let i = chain.length - 1; i >= 0 && index === -1; i--) if (chain[i].bundleId === bundleId) index = i;
    const source = headers.bundleId ? 'header' : 'stored';
    if (index !== -1) return at(index, 'bundle_header', source);
    steps.push({ step: 'position', outcome: 'skipped', reason: 'header_not_in_chain', detail: { header: 'bundle', source, bundle_id: bundleId } });
  }

  if (headers.releaseVersion !== null && headers.releaseVersion !== undefined) {
    // The lowest release whose requirement the version satisfies (no requirement = satisfied).
    const index = headerVersion === null ? -1 : chain.findIndex((release) => satisfies(headerVersion, release));
    if (index !== -1) {
      steps.push({ step: 'position', subject: releaseSubject(chain[index]), outcome: 'taken', reason: 'version_header', detail: { version: headers.releaseVersion } });
      return { start: index, at: null, deviceVersion: headerVersion };
    }
    steps.push({
      step: 'position',
      outcome: 'skipped',
      reason: 'header_not_in_chain',
      detail: { header: 'version', version: headers.releaseVersion, valid: headerVersion !== null },
    });
  }

  steps.push({ step: 'position', subject: releaseSubject(chain[0]), outcome: 'taken', reason: 'no_position' });
  return { start: 0, at: null, deviceVersion: headerVersion };
}

/** Step 3: from the start to the latest, stopping at the first required release (inclusive). */
function walkForward(chain: readonly ChainRelease[], start: number, steps: ExplainStep[]): number | null {
  if (start >= chain.length) {
    steps.push({ step: 'walk_forward', outcome: 'skipped', reason: 'at_latest' });
    return null;
  }
  for (let i = start; i < chain.length; i++) {
    const release = chain[i];
    if (release.required) {
      steps.push({ step: 'walk_forward', subject: releaseSubject(release), outcome: 'taken', reason: 'required_release' });
      return i;
    }
    if (i === chain.length - 1) {
      steps.push({ step: 'walk_forward', subject: releaseSubject(release), outcome: 'taken', reason: 'latest_release' });
      return i;
    }
    steps.push({ step: 'walk_forward', subject: releaseSubject(release), outcome: 'considered', reason: 'passed_over' });
  }
  return null; // unreachable: the loop returns at the latest release
}

interface Usable {
  index: number;
  needsClaim: boolean;
}

/** The device holds a phase claim or a live cap slot of the release: it was offered it already. */
function alreadyOffered(input: ResolutionInput, release: ChainRelease): boolean {
  if (isPhased(release) && input.phaseClaims(release.id).deviceHasClaim) return true;
  return release.maxConcurrent !== null && input.slots !== undefined && input.slots(release.id).held;
}

/** Step 4: from the target back to the start, the first release the device may have now. */
function walkBackward(input: ResolutionInput, target: number, position: Position, steps: ExplainStep[]): Usable | null {
  const { chain, now } = input;
  for (let i = target; i >= position.start; i--) {
    const release = chain[i];
    const subject = releaseSubject(release);
    if (release.disabled) {
      steps.push({ step: 'walk_backward', subject, outcome: 'skipped', reason: 'disabled' });
      continue;
    }
    if (release.cancelled) {
      steps.push({ step: 'walk_backward', subject, outcome: 'skipped', reason: 'cancelled' });
      continue;
    }
    // A pause stops new offers: a device that already holds a slot of the phase or cap was offered it.
    if (release.paused && !alreadyOffered(input, release)) {
      steps.push({ step: 'walk_backward', subject, outcome: 'skipped', reason: 'paused' });
      continue;
    }
    // The penalty box: this device failed this release too often and rests from it until then.
    const restUntil = input.restUntil?.get(release.id);
    if (restUntil !== undefined && now.getTime() < restUntil) {
      steps.push({ step: 'walk_backward', subject, outcome: 'skipped', reason: 'penalty_box', detail: { rest_until: new Date(restUntil).toISOString() } });
      continue;
    }
    // Outside every window no new offer: a slot holder (phase or cap) was offered it already.
    if (release.maintenanceWindows !== null && !insideWindows(release.maintenanceWindows, now.getTime()) && !alreadyOffered(input, release)) {
      const next = nextWindowStart(release.maintenanceWindows, now.getTime());
      steps.push({ step: 'walk_backward', subject, outcome: 'skipped', reason: 'outside_maintenance_window', detail: { next_window_at: next === null ? null : new Date(next).toISOString() } });
      continue;
    }
    if (release.scheduleDate !== null && release.scheduleDate.getTime() > now.getTime()) {
      steps.push({ step: 'walk_backward', subject, outcome: 'skipped', reason: 'scheduled', detail: { schedule_date: release.scheduleDate.toISOString() } });
      continue;
    }
    if (release.versionRequirement !== null) {
      const requirement = parseRequirement(release.versionRequirement);
      const met = requirement !== null && position.deviceVersion !== null && matchesRequirement(position.deviceVersion, requirement);
      if (!met) {
        const why = requirement === null ? 'invalid_requirement' : position.deviceVersion === null ? 'no_device_version' : 'not_satisfied';
        steps.push({ step: 'walk_backward', subject, outcome: 'skipped', reason: 'requirement_not_met', detail: { requirement: release.versionRequirement, why } });
        continue;
      }
    }
    let needsClaim = false;
    if (isPhased(release)) {
      const decision = phaseDecision(release, input.device, input.phaseClaims(release.id));
      if (!decision.eligible) {
        steps.push({ step: 'walk_backward', subject, outcome: 'skipped', reason: decision.reason, detail: decision.detail });
        continue;
      }
      needsClaim = decision.needsClaim;
      steps.push({ step: 'walk_backward', subject, outcome: 'taken', reason: decision.reason, detail: decision.detail });
    } else {
      steps.push({ step: 'walk_backward', subject, outcome: 'taken', reason: 'usable' });
    }
    return { index: i, needsClaim };
  }
  steps.push({ step: 'walk_backward', outcome: 'skipped', reason: 'nothing_usable' });
  return null;
}

/** The device already runs this release: by id, by bundle, or by declaring the same version. */
function alreadyCurrent(input: ResolutionInput, release: ChainRelease): boolean {
  const reportedRelease = input.headers.releaseId ?? input.device.reportedReleaseId;
  const reportedBundle = input.headers.bundleId ?? input.device.reportedBundleId;
  if (release.id === reportedRelease || release.bundleId === reportedBundle) return true;
  const headerVersion = parseOptionalVersion(input.headers.releaseVersion);
  const releaseVersion = parseOptionalVersion(release.version);
  // Without this, a device that only reports its version would be offered its own version again.
  return headerVersion !== null && releaseVersion !== null && compareVersions(headerVersion, releaseVersion) === 0;
}

export function resolveUpdate(input: ResolutionInput): ResolutionResult {
  const steps: ExplainStep[] = [];
  const { device, chain } = input;

  if (device.quarantined) {
    steps.push({ step: 'quarantine', outcome: 'taken', reason: 'quarantined' });
    return noUpdate(steps, 'device_quarantine');
  }
  // The contract checks the cohort before overrides ("not in a cohort -> no_update").
  if (device.cohortId === null) {
    steps.push({ step: 'cohort', outcome: 'taken', reason: 'no_cohort' });
    return noUpdate(steps);
  }

  const override = chooseOverride(input, steps);
  if (override !== null) return resolveOverride(input, override, steps);

  if (chain.length === 0) {
    steps.push({ step: 'cohort', outcome: 'taken', reason: 'no_releases' });
    return noUpdate(steps);
  }

  const position = findPosition(input, steps);
  const target = walkForward(chain, position.start, steps);
  if (target === null) return noUpdate(steps);
  const usable = walkBackward(input, target, position, steps);
  if (usable === null) return noUpdate(steps);

  const release = chain[usable.index];
  const subject = releaseSubject(release);
  if (!input.bundleSigned(release.bundleId)) {
    steps.push({ step: 'bundle_signed', subject, outcome: 'skipped', reason: 'unsigned_binaries', detail: { bundle_id: release.bundleId } });
    return noUpdate(steps);
  }
  steps.push({ step: 'bundle_signed', subject, outcome: 'considered', reason: 'signed' });
  if (alreadyCurrent(input, release)) {
    steps.push({ step: 'already_current', subject, outcome: 'skipped', reason: 'already_current' });
    return noUpdate(steps);
  }
  steps.push({ step: 'already_current', subject, outcome: 'taken', reason: 'new_for_device' });
  // The concurrency cap comes last: only a device that would be offered the release counts.
  let slot: ResolutionResult['slot'] = null;
  if (release.maxConcurrent !== null) {
    const decision = capDecision(release.maxConcurrent, input.slots?.(release.id) ?? { held: false, used: 0 }, device.id, input.retryBaseSeconds);
    if (decision.kind === 'full') {
      const detail = { ...decision.detail, retry_after_seconds: decision.retryAfterSeconds };
      steps.push({ step: 'concurrency', subject, outcome: 'skipped', reason: 'concurrency_full', detail });
      return { ...noUpdate(steps, 'retry_later'), retryAfterSeconds: decision.retryAfterSeconds };
    }
    steps.push({ step: 'concurrency', subject, outcome: 'taken', reason: decision.kind === 'held' ? 'concurrency_slot_held' : 'concurrency_slot_available', detail: decision.detail });
    if (decision.kind === 'take') slot = { releaseId: release.id };
  }
  return {
    status: 'update',
    sourceType: 'release',
    releaseId: release.id,
    bundleId: release.bundleId,
    overrideId: null,
    claim: usable.needsClaim ? { releaseId: release.id } : null,
    slot,
    retryAfterSeconds: null,
    explanation: steps,
  };
}
