import { describe, expect, it } from 'vitest';
import {
  chainRuleProblem,
  isScheduledInFuture,
  isValidPhaseValue,
  phaseTypeOf,
  phaseValueFrozen,
  releaseFieldProblems,
  type ReleaseRuleFields,
} from './release-rules';

const NOW = new Date('2026-06-01T12:00:00Z');

function release(fields: Partial<ReleaseRuleFields> = {}): ReleaseRuleFields {
  return { id: 'r', scheduleDate: null, phaseMode: 'numeric', phaseValue: 1, phaseTags: null, version: null, versionRequirement: null, ...fields };
}

describe('phaseTypeOf', () => {
  it.each([
    [null, null],
    [0, 'percent'],
    [0.25, 'percent'],
    [1, 'percent'],
    [2, 'static'],
    [500, 'static'],
  ] as const)('%s is %s', (value, type) => {
    expect(phaseTypeOf(value)).toBe(type);
  });
});

describe('isValidPhaseValue', () => {
  it.each([0, 0.001, 0.5, 1, 2, 3, 1_000_000_000])('accepts %s', (value) => {
    expect(isValidPhaseValue(value)).toBe(true);
  });
  it.each([-0.1, -1, 1.5, 2.5, 1_000_000_001, Number.NaN, Number.POSITIVE_INFINITY])('refuses %s', (value) => {
    expect(isValidPhaseValue(value)).toBe(false);
  });
});

describe('releaseFieldProblems', () => {
  it('has none for a plain numeric release at 1', () => {
    expect(releaseFieldProblems(release())).toEqual([]);
  });

  it('names an invalid version and requirement', () => {
    expect(releaseFieldProblems(release({ version: '1.0', versionRequirement: '>= banana' }))).toEqual([
      { field: 'version', reason: 'invalid_version' },
      { field: 'version_requirement', reason: 'invalid_requirement' },
    ]);
    expect(releaseFieldProblems(release({ version: '1.2.3', versionRequirement: '>= 1.0.0' }))).toEqual([]);
  });

  it('refuses a phase value out of range with the allowed range', () => {
    expect(releaseFieldProblems(release({ phaseValue: 1.5 }))).toEqual([
      { field: 'phase_value', reason: 'out_of_range', allowed: '0..1 (fraction) or an integer 2..1000000000 (devices)' },
    ]);
  });

  it('requires a value in numeric mode', () => {
    expect(releaseFieldProblems(release({ phaseValue: null }))).toEqual([{ field: 'phase_value', reason: 'required_in_numeric_mode' }]);
  });

  it('requires tags in tags mode, where the value is only null (phased) or 1 (done)', () => {
    expect(releaseFieldProblems(release({ phaseMode: 'tags', phaseValue: null, phaseTags: [] }))).toEqual([{ field: 'phase_tags', reason: 'required_in_tags_mode' }]);
    expect(releaseFieldProblems(release({ phaseMode: 'tags', phaseValue: 0.5, phaseTags: ['canary'] }))).toEqual([{ field: 'phase_value', reason: 'tags_mode_allows_only_1' }]);
    expect(releaseFieldProblems(release({ phaseMode: 'tags', phaseValue: null, phaseTags: ['canary'] }))).toEqual([]);
    expect(releaseFieldProblems(release({ phaseMode: 'tags', phaseValue: 1, phaseTags: ['canary'] }))).toEqual([]);
  });
});

describe('isScheduledInFuture', () => {
  it('is true only for a schedule date after now', () => {
    expect(isScheduledInFuture(release({ scheduleDate: null }), NOW)).toBe(false);
    expect(isScheduledInFuture(release({ scheduleDate: '2026-06-01T12:00:01Z' }), NOW)).toBe(true);
    expect(isScheduledInFuture(release({ scheduleDate: '2026-06-01T12:00:00Z' }), NOW)).toBe(false);
    expect(isScheduledInFuture(release({ scheduleDate: '2026-05-01T00:00:00Z' }), NOW)).toBe(false);
  });
});

describe('chainRuleProblem: only the latest may be scheduled in the future or phased', () => {
  it('allows a chain whose latest is scheduled and phased', () => {
    const chain = [release({ id: 'a' }), release({ id: 'b', scheduleDate: '2027-01-01T00:00:00Z', phaseValue: 0.1 })];
    expect(chainRuleProblem(chain, NOW)).toBeNull();
  });

  it('allows an empty chain and a chain of one', () => {
    expect(chainRuleProblem([], NOW)).toBeNull();
    expect(chainRuleProblem([release({ phaseValue: 0.5 })], NOW)).toBeNull();
  });

  it('names an earlier release scheduled in the future', () => {
    const chain = [release({ id: 'a', scheduleDate: '2027-01-01T00:00:00Z' }), release({ id: 'b' })];
    expect(chainRuleProblem(chain, NOW)).toEqual({ reason: 'scheduled_not_latest', releaseId: 'a' });
  });

  it('names an earlier phased release, numeric or by tags', () => {
    expect(chainRuleProblem([release({ id: 'a', phaseValue: 0.5 }), release({ id: 'b' })], NOW)).toEqual({ reason: 'phased_not_latest', releaseId: 'a' });
    expect(chainRuleProblem([release({ id: 'a', phaseMode: 'tags', phaseValue: null, phaseTags: ['x'] }), release({ id: 'b' })], NOW)).toEqual({
      reason: 'phased_not_latest',
      releaseId: 'a',
    });
  });

  it('lets an earlier release keep a past schedule date and a completed phase', () => {
    const chain = [release({ id: 'a', scheduleDate: '2026-01-01T00:00:00Z', phaseValue: 1 }), release({ id: 'b' })];
    expect(chainRuleProblem(chain, NOW)).toBeNull();
  });
});

describe('phaseValueFrozen', () => {
  it('freezes a value of 1 for good', () => {
    expect(phaseValueFrozen(1, 0.5)).toBe(true);
    expect(phaseValueFrozen(1, null)).toBe(true);
    expect(phaseValueFrozen(1, 1)).toBe(false);
  });
  it('lets any other value change', () => {
    expect(phaseValueFrozen(0.5, 1)).toBe(false);
    expect(phaseValueFrozen(null, 0.2)).toBe(false);
    expect(phaseValueFrozen(5, 10)).toBe(false);
  });
});
