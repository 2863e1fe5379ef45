import { describe, expect, it } from 'vitest';
import { failureRatio, haltSettingProblems, shouldHalt } from './halt-rule';

const counts = (installed: number, failed: number, rolledBack = 0) => ({ installed, failed, rolledBack });

describe('shouldHalt', () => {
  it('never halts with the gate off, whatever the failures', () => {
    expect(shouldHalt({ haltFailureRatio: null, haltMinReports: 1 }, counts(0, 1000, 1000))).toBe(false);
  });

  it('waits for halt_min_reports finished devices: one short does not halt, reaching it does', () => {
    const settings = { haltFailureRatio: 0.2, haltMinReports: 20 };
    expect(shouldHalt(settings, counts(0, 19))).toBe(false);
    expect(shouldHalt(settings, counts(0, 20))).toBe(true);
    expect(shouldHalt(settings, counts(1, 19))).toBe(true);
  });

  it('halts exactly at the ratio and not just below it', () => {
    const settings = { haltFailureRatio: 0.2, haltMinReports: 5 };
    expect(shouldHalt(settings, counts(40, 10))).toBe(true); // 10 / 50 = 0.2
    expect(shouldHalt(settings, counts(41, 10))).toBe(false); // 10 / 51 < 0.2
    expect(shouldHalt({ haltFailureRatio: 0.3, haltMinReports: 5 }, counts(7, 3))).toBe(true); // 0.1 * 3 in floating point is 0.30000000000000004 the other way
    expect(shouldHalt({ haltFailureRatio: 0.7, haltMinReports: 1 }, counts(3, 7))).toBe(true);
  });

  it('counts rolled_back as a failure', () => {
    const settings = { haltFailureRatio: 0.5, haltMinReports: 4 };
    expect(shouldHalt(settings, counts(2, 1, 1))).toBe(true);
    expect(shouldHalt(settings, counts(3, 0, 1))).toBe(false);
  });

  it('ratio 1 halts only when every finished device failed', () => {
    const settings = { haltFailureRatio: 1, haltMinReports: 3 };
    expect(shouldHalt(settings, counts(0, 2, 1))).toBe(true);
    expect(shouldHalt(settings, counts(1, 100, 100))).toBe(false);
  });

  it('a tiny ratio halts on the first failure once enough finished', () => {
    const settings = { haltFailureRatio: 1e-9, haltMinReports: 1 };
    expect(shouldHalt(settings, counts(1, 0))).toBe(false);
    expect(shouldHalt(settings, counts(1_000_000, 1))).toBe(true);
  });
});

describe('failureRatio', () => {
  it('is null before anything finished', () => {
    expect(failureRatio(counts(0, 0))).toBeNull();
    expect(failureRatio(counts(3, 1))).toBe(0.25);
  });
});

describe('haltSettingProblems', () => {
  it('accepts null, values in (0, 1], and integer minimums >= 1', () => {
    expect(haltSettingProblems({ haltFailureRatio: null, haltMinReports: 5 })).toEqual([]);
    expect(haltSettingProblems({ haltFailureRatio: 1, haltMinReports: 1 })).toEqual([]);
    expect(haltSettingProblems({ haltFailureRatio: 0.0001, haltMinReports: 100000 })).toEqual([]);
  });

  it('refuses 0, negatives, above 1, NaN and non-integer or zero minimums, naming the field', () => {
    for (const ratio of [0, -0.1, 1.0001, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(haltSettingProblems({ haltFailureRatio: ratio, haltMinReports: 5 }).map((p) => p.field)).toEqual(['halt_failure_ratio']);
    }
    for (const min of [0, -1, 1.5]) {
      expect(haltSettingProblems({ haltFailureRatio: 0.5, haltMinReports: min }).map((p) => p.field)).toEqual(['halt_min_reports']);
    }
  });
});
