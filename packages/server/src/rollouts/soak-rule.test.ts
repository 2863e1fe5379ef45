import { describe, expect, it } from 'vitest';
import { afterReport, MAX_SOAK_SECONDS, outcomeCounts, soakSettingProblems, type SoakRow } from './soak-rule';

const T = Date.parse('2026-11-28T12:00:00Z');
const installed = (at = T): SoakRow => ({ status: 'installed', soakStartedAt: at });

describe('afterReport', () => {
  it('starts the soak at installed and confirms at the first healthy report a soak later, not before', () => {
    const first = afterReport(null, 'installed', 60, T);
    expect(first).toEqual({ row: installed(T), outcome: null });
    expect(afterReport(first.row, 'healthy', 60, T + 59_999)).toEqual({ row: installed(T), outcome: 'soaking' });
    expect(afterReport(first.row, 'healthy', 60, T + 60_000)).toEqual({ row: { status: 'confirmed', soakStartedAt: T }, outcome: 'passed' });
  });

  it('counts a failure or a rollback within the soak as a soak failure', () => {
    expect(afterReport(installed(), 'failed', 60, T + 1000)).toEqual({ row: { status: 'failed', soakStartedAt: null }, outcome: 'failed' });
    expect(afterReport(installed(), 'rolled_back', 60, T + 1000).outcome).toBe('failed');
    // After the soak passed, a failure is an ordinary one (as on a release without a soak).
    expect(afterReport({ status: 'confirmed', soakStartedAt: T }, 'rolled_back', 60, T + 90_000)).toEqual({ row: { status: 'rolled_back', soakStartedAt: null }, outcome: null });
  });

  it('leaves releases without a soak as they were: healthy changes nothing, installed is final', () => {
    for (const soak of [null, 0]) {
      expect(afterReport(installed(), 'healthy', soak, T + 10 ** 9)).toEqual({ row: installed(), outcome: null });
      expect(afterReport(installed(), 'failed', soak, T + 1).outcome).toBeNull();
    }
  });

  it('never makes a row from a healthy report, nor confirms a device that is not installed', () => {
    expect(afterReport(null, 'healthy', 60, T)).toEqual({ row: null, outcome: null });
    for (const status of ['downloading', 'failed', 'rolled_back', 'deferred', 'confirmed'] as const) {
      const row: SoakRow = { status, soakStartedAt: null };
      expect(afterReport(row, 'healthy', 60, T + 10 ** 9)).toEqual({ row, outcome: null });
    }
  });

  it('keeps the soak start on a repeated installed, keeps a confirmed device confirmed, and restarts after a new attempt', () => {
    expect(afterReport(installed(T), 'installed', 60, T + 30_000).row).toEqual(installed(T));
    expect(afterReport({ status: 'confirmed', soakStartedAt: T }, 'installed', 60, T + 30_000).row?.status).toBe('confirmed');
    const again = afterReport(afterReport(installed(T), 'downloading', 60, T + 1).row, 'installed', 60, T + 5000);
    expect(again.row).toEqual(installed(T + 5000));
  });

  it('lets no deferral replace an installed, confirmed or failed row', () => {
    for (const status of ['installed', 'confirmed', 'failed', 'rolled_back'] as const) {
      const row: SoakRow = { status, soakStartedAt: null };
      expect(afterReport(row, 'deferred', 60, T).row).toBe(row);
    }
    expect(afterReport({ status: 'downloading', soakStartedAt: null }, 'deferred', 60, T).row?.status).toBe('deferred');
  });
});

describe('outcomeCounts', () => {
  const reported = { installed: 7, confirmed: 5, failed: 2, rolled_back: 1 };
  it('counts only confirmed devices as succeeded with a soak, and the installed ones as soaking', () => {
    expect(outcomeCounts(reported, 600)).toEqual({ succeeded: 5, soaking: 7, failed: 2, rolledBack: 1 });
  });
  it('counts installed as succeeded without a soak (and confirmed ones of a soak since removed)', () => {
    expect(outcomeCounts(reported, null)).toEqual({ succeeded: 12, soaking: 0, failed: 2, rolledBack: 1 });
  });
});

describe('soakSettingProblems', () => {
  it('takes null or a whole number of seconds up to 30 days, and names the field otherwise', () => {
    expect(soakSettingProblems(null)).toEqual([]);
    expect(soakSettingProblems(1)).toEqual([]);
    expect(soakSettingProblems(MAX_SOAK_SECONDS)).toEqual([]);
    for (const bad of [0, -5, 1.5, MAX_SOAK_SECONDS + 1, Number.NaN]) expect(soakSettingProblems(bad)).toEqual([expect.objectContaining({ field: 'soak_seconds', reason: 'out_of_range' })]);
  });
});
