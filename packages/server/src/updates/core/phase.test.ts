import { describe, expect, it } from 'vitest';
import { PHASE_COUNT_MAX, PHASE_COUNT_MIN, phaseDecision } from './phase';

const state = (claimCount: number, cohortDeviceCount: number, deviceHasClaim = false) => ({ claimCount, cohortDeviceCount, deviceHasClaim });
const numeric = (phaseValue: number | null) => ({ phaseMode: 'numeric' as const, phaseValue, phaseTags: null });
const tagged = (phaseTags: string[] | null) => ({ phaseMode: 'tags' as const, phaseValue: null, phaseTags });

describe('phaseDecision', () => {
  it('keeps a device that holds a claim, in either mode, whatever the counts', () => {
    expect(phaseDecision(numeric(0), { tags: [] }, state(10, 10, true))).toEqual({ eligible: true, needsClaim: false, reason: 'phase_claimed', detail: {} });
    expect(phaseDecision(tagged(['canary']), { tags: null }, state(0, 0, true))).toMatchObject({ eligible: true, reason: 'phase_claimed' });
  });

  it('hands out a numeric slot while claims are below the slots, and says what it counted', () => {
    expect(phaseDecision(numeric(0.5), { tags: [] }, state(4, 10))).toEqual({
      eligible: true,
      needsClaim: true,
      reason: 'phase_slot_available',
      detail: { phase_value: 0.5, slots: 5, claims: 4, cohort_device_count: 10 },
    });
  });

  it('is full once claims reach the slots', () => {
    expect(phaseDecision(numeric(0.5), { tags: [] }, state(5, 10))).toEqual({
      eligible: false,
      reason: 'phase_full',
      detail: { phase_value: 0.5, slots: 5, claims: 5, cohort_device_count: 10 },
    });
    expect(phaseDecision(numeric(3), { tags: [] }, state(3, 1000))).toMatchObject({ eligible: false, reason: 'phase_full' });
  });

  it('counts a device number whatever the cohort size', () => {
    expect(phaseDecision(numeric(PHASE_COUNT_MIN), { tags: [] }, state(1, 0))).toMatchObject({ eligible: true, needsClaim: true });
    expect(phaseDecision(numeric(PHASE_COUNT_MAX), { tags: [] }, state(PHASE_COUNT_MAX - 1, 5))).toMatchObject({ eligible: true });
  });

  it('pauses at 0 and fails closed on a value with no meaning', () => {
    expect(phaseDecision(numeric(0), { tags: [] }, state(0, 100))).toMatchObject({ eligible: false, reason: 'phase_full' });
    expect(phaseDecision(numeric(1.5), { tags: [] }, state(0, 100))).toMatchObject({ eligible: false, reason: 'phase_full', detail: { slots: 0 } });
    expect(phaseDecision(numeric(null), { tags: [] }, state(0, 100))).toMatchObject({ eligible: false, reason: 'phase_full' });
  });

  it('reports unlimited slots as null in its detail', () => {
    expect(phaseDecision(numeric(1), { tags: [] }, state(1_000_000, 10))).toMatchObject({ eligible: true, needsClaim: true, detail: { slots: null } });
  });

  it('admits a device sharing a phase tag without a slot, naming the tag', () => {
    expect(phaseDecision(tagged(['canary', 'lab']), { tags: ['lab', 'eu'] }, state(0, 0))).toEqual({
      eligible: true,
      needsClaim: false,
      reason: 'phase_slot_available',
      detail: { matched_tag: 'lab' },
    });
  });

  it('refuses a device with no shared tag, or with no tags at all', () => {
    const expected = { eligible: false, reason: 'not_in_phase_tags', detail: { phase_tags: 'canary,lab' } };
    expect(phaseDecision(tagged(['canary', 'lab']), { tags: ['eu'] }, state(0, 0))).toEqual(expected);
    expect(phaseDecision(tagged(['canary', 'lab']), { tags: null }, state(0, 0))).toEqual(expected);
    expect(phaseDecision(tagged(null), { tags: ['eu'] }, state(0, 0))).toEqual({ eligible: false, reason: 'not_in_phase_tags', detail: { phase_tags: '' } });
  });
});
