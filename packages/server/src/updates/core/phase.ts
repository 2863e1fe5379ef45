/**
 * Release phasing (spec 2 section 4,
 * site/docs/canopy-core/reference/bundle-management/releases.md, "Phasing"): how many devices a
 * phased release may reach, and whether one device may have it now.
 */
import type { ChainRelease, ExplainDetail, PhaseClaimState, ResolutionDevice } from './resolution-types';

export const PHASE_COUNT_MIN = 2;
export const PHASE_COUNT_MAX = 1_000_000_000;

/**
 * A release is phased while its phase_value is not 1 ("A release whose phase_value is not 1 counts
 * as phased"). A numeric release with no phase_value was never phased (numeric mode requires a
 * value, so null can only mean "not set"); a tags release without a value is phased by its tags.
 */
export function isPhased(release: Pick<ChainRelease, 'phaseMode' | 'phaseValue'>): boolean {
  if (release.phaseValue === 1) return false;
  return release.phaseMode === 'tags' || release.phaseValue !== null;
}

/**
 * How many devices may claim a numeric phase.
 * - 1 (complete): unlimited (Infinity); nobody needs a claim any more.
 * - a fraction in [0,1): floor(fraction x cohort size), so a phase never reaches more devices than
 *   the percentage says, but at least 1 when the fraction and the cohort are non-zero: an operator
 *   starting a 1% canary on a 50-device cohort means "start", not "nobody" (0 stays a pause).
 *   The product is rounded to 9 significant decimals first so 0.29 x 100 gives 29, not 28.
 * - an integer 2..1,000,000,000: that many devices, whatever the cohort size.
 * - anything else (null, negative, NaN, 1.5, > 1e9): 0; invalid values fail closed.
 */
export function phaseSlots(phaseValue: number | null, cohortDeviceCount: number): number {
  if (phaseValue === null || !Number.isFinite(phaseValue)) return 0;
  if (phaseValue === 1) return Number.POSITIVE_INFINITY;
  if (phaseValue >= 0 && phaseValue < 1) {
    const devices = Math.max(0, Math.floor(cohortDeviceCount));
    if (phaseValue === 0 || devices === 0) return 0;
    const exact = phaseValue * devices;
    const nearest = Math.round(exact);
    const slots = Math.abs(exact - nearest) < 1e-9 * Math.max(1, exact) ? nearest : Math.floor(exact);
    return Math.max(1, slots);
  }
  if (Number.isInteger(phaseValue) && phaseValue >= PHASE_COUNT_MIN && phaseValue <= PHASE_COUNT_MAX) return phaseValue;
  return 0;
}

export type PhaseDecision =
  | { eligible: true; needsClaim: boolean; reason: 'phase_claimed' | 'phase_slot_available'; detail: ExplainDetail }
  | { eligible: false; reason: 'phase_full' | 'not_in_phase_tags'; detail: ExplainDetail };

/**
 * Whether the device may have this phased release now. A device that holds a claim keeps it in
 * either mode (claims are stable). Tags mode needs one shared tag and takes no slot: there is no
 * capacity to protect. Numeric mode hands out a new slot only while claims < slots.
 */
export function phaseDecision(
  release: Pick<ChainRelease, 'phaseMode' | 'phaseValue' | 'phaseTags'>,
  device: Pick<ResolutionDevice, 'tags'>,
  state: PhaseClaimState,
): PhaseDecision {
  if (state.deviceHasClaim) return { eligible: true, needsClaim: false, reason: 'phase_claimed', detail: {} };
  if (release.phaseMode === 'tags') {
    const wanted = release.phaseTags ?? [];
    const has = device.tags ?? [];
    const shared = wanted.find((tag) => has.includes(tag));
    return shared === undefined
      ? { eligible: false, reason: 'not_in_phase_tags', detail: { phase_tags: wanted.join(',') } }
      : { eligible: true, needsClaim: false, reason: 'phase_slot_available', detail: { matched_tag: shared } };
  }
  const slots = phaseSlots(release.phaseValue, state.cohortDeviceCount);
  const detail: ExplainDetail = {
    phase_value: release.phaseValue,
    slots: Number.isFinite(slots) ? slots : null,
    claims: state.claimCount,
    cohort_device_count: state.cohortDeviceCount,
  };
  return state.claimCount < slots
    ? { eligible: true, needsClaim: true, reason: 'phase_slot_available', detail }
    : { eligible: false, reason: 'phase_full', detail };
}
