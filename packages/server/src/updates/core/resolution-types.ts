/**
 * The inputs and output of update resolution
 * (site/docs/canopy-core/reference/bundle-management/releases.md), as plain data.
 *
 * The caller (device API `GET /update`, admin `POST /devices/{prn}/update` and `.../update/explain`)
 * loads these from the database; resolution itself reads nothing and writes nothing. It only says
 * that a phase claim must be taken; the caller takes it, serialised per cohort.
 */
import type { MaintenanceWindow } from './window-rule';

export interface ResolutionDevice {
  id: string;
  quarantined: boolean;
  cohortId: string | null;
  tags: readonly string[] | null;
  /** The release / bundle the device last reported (stored), used when no header says otherwise. */
  reportedReleaseId: string | null;
  reportedBundleId: string | null;
}

/**
 * The position headers of this check (`canopy-release-prn`, `canopy-bundle-prn`,
 * `canopy-release-version`), prns already mapped to ids by the caller. A release header naming a
 * release that is not in the device's cohort chain is ignored.
 */
export interface PositionHeaders {
  releaseId?: string | null;
  bundleId?: string | null;
  releaseVersion?: string | null;
}

export type PhaseMode = 'numeric' | 'tags';

/** One release of the device's cohort; the chain lists them first to latest. */
export interface ChainRelease {
  id: string;
  bundleId: string;
  required: boolean;
  disabled: boolean;
  /** Paused by an operator: only a device already holding its phase slot is still offered it. */
  paused: boolean;
  /** Cancelled by an operator: never offered again. */
  cancelled: boolean;
  scheduleDate: Date | null;
  /** Elixir requirement the device's current version must satisfy; null = no restriction. */
  versionRequirement: string | null;
  /** The version this release installs, if declared. */
  version: string | null;
  phaseMode: PhaseMode;
  /** [0,1] fraction of the cohort, or an integer 2..1e9 device count; 1 = complete (not phased). */
  phaseValue: number | null;
  phaseTags: readonly string[] | null;
  /** The release's maintenance windows, else its cohort's (chain-cache.ts); null = always open. */
  maintenanceWindows: readonly MaintenanceWindow[] | null;
  /** The concurrency cap (concurrency-rule.ts): devices updating at once; null = no cap. */
  maxConcurrent: number | null;
}

/** A bundle override attached to the device (active or not; resolution checks the window). */
export interface DeviceOverride {
  id: string;
  bundleId: string;
  startsAt: Date;
  endsAt: Date;
}

/** What the database knows about a phased release's claims at the time of the check. */
export interface PhaseClaimState {
  /** The device already holds a claim on this release: claims are stable. */
  deviceHasClaim: boolean;
  /** Claims already handed out for this release. */
  claimCount: number;
  /** Devices in the cohort now (a fractional phase counts against this at claim time). */
  cohortDeviceCount: number;
}

/** What the database knew about a capped release's slots when the check read its state. */
export interface SlotState {
  /** The device holds a live slot of this release. */
  held: boolean;
  /** Live slots (not timed out) of the release at the read. */
  used: number;
}

export interface ResolutionInput {
  device: ResolutionDevice;
  headers: PositionHeaders;
  /** The device's cohort chain, first to latest (see releases/chain.ts); empty when the cohort has none. */
  chain: readonly ChainRelease[];
  /** Each release's index in `chain`, by id, when the caller keeps one with the chain (chain-cache.ts); else resolution searches. */
  chainIndex?: ReadonlyMap<string, number>;
  overrides: readonly DeviceOverride[];
  /** True when every binary of the bundle is signed (the bundle is distributable). */
  bundleSigned: (bundleId: string) => boolean;
  /** Claim state of a phased release; only asked for releases where isPhased() is true. */
  phaseClaims: (releaseId: string) => PhaseClaimState;
  /** The penalty box: releases the device rests from, with when the rest ends (ms); absent = none. */
  restUntil?: ReadonlyMap<string, number>;
  /** Slot state of a capped release (maxConcurrent set); absent = every cap has room and no slot is held. */
  slots?: (releaseId: string) => SlotState;
  /** The base of the retry hint a device beyond a full cap gets (seconds); absent = the default. */
  retryBaseSeconds?: number;
  now: Date;
}

export type ResolutionStatus = 'update' | 'no_update' | 'device_quarantine' | 'retry_later';
export type SourceType = 'release' | 'bundle_override';

export type ExplainStepName =
  | 'quarantine'
  | 'cohort'
  | 'override'
  | 'position'
  | 'walk_forward'
  | 'walk_backward'
  | 'bundle_signed'
  | 'already_current'
  | 'concurrency';

export type ExplainReason =
  // gatekeeping
  | 'quarantined'
  | 'no_cohort'
  | 'no_releases'
  // overrides
  | 'override_active'
  | 'override_not_active'
  | 'override_superseded'
  // position
  | 'release_header'
  | 'bundle_header'
  | 'version_header'
  | 'header_not_in_chain'
  | 'no_position'
  // walk forward
  | 'required_release'
  | 'latest_release'
  | 'passed_over'
  | 'at_latest'
  // walk backward
  | 'usable'
  | 'disabled'
  | 'cancelled'
  | 'paused'
  | 'penalty_box'
  | 'outside_maintenance_window'
  | 'scheduled'
  | 'requirement_not_met'
  | 'phase_full'
  | 'not_in_phase_tags'
  | 'phase_claimed'
  | 'phase_slot_available'
  | 'nothing_usable'
  // final checks
  | 'unsigned_binaries'
  | 'signed'
  | 'already_current'
  | 'new_for_device'
  // the concurrency cap
  | 'concurrency_slot_held'
  | 'concurrency_slot_available'
  | 'concurrency_full';

export type ExplainDetail = Record<string, string | number | boolean | null>;

/** One line of `GET /devices/{prn}/update/explain`. */
export interface ExplainStep {
  step: ExplainStepName;
  subject?: { type: 'release' | 'bundle_override'; id: string };
  outcome: 'taken' | 'skipped' | 'considered';
  reason: ExplainReason;
  detail?: ExplainDetail;
}

export interface ResolutionResult {
  status: ResolutionStatus;
  /** Set only when status is `update`. */
  sourceType: SourceType | null;
  releaseId: string | null;
  bundleId: string | null;
  overrideId: string | null;
  /** The device must take a slot of this phased release (emit `device.claimed_release`). */
  claim: { releaseId: string } | null;
  /** The device must take a slot of this capped release (updates/slot-claims.ts); refused = retry_later. */
  slot: { releaseId: string } | null;
  /** Set only when status is `retry_later`: come back after this many seconds. */
  retryAfterSeconds: number | null;
  explanation: ExplainStep[];
}
