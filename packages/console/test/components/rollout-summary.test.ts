import { describe, expect, it } from 'vitest';
import { releaseState } from '../../src/features/releases/release-state';
import { statusFilterOf, summarizeRollout } from '../../src/features/releases/rollout-summary';

const reported = { downloading: 0, installing: 0, rebooting: 0, installed: 0, failed: 0, rolled_back: 0 };
const counts = (buckets: ReturnType<typeof summarizeRollout>['buckets']) => Object.fromEntries(buckets.map((b) => [b.key, [b.count, b.percent]]));

describe('summarizeRollout', () => {
  it('never shows installed ahead of on it: a device reporting installed is on it', () => {
    const { total, buckets } = summarizeRollout({ cohort_devices: 40, eligible: 30, on_release: 0, reported: { ...reported, installed: 10, downloading: 3, failed: 2, rolled_back: 1 } });
    expect(total).toBe(40);
    expect(counts(buckets)).toEqual({ on_it: [10, 25], in_progress: [3, 8], failed: [3, 8], waiting: [24, 60], not_offered: [0, 0] });
  });

  it('keeps the parts within the whole when devices left the cohort after reporting', () => {
    const { total, buckets } = summarizeRollout({ cohort_devices: 2, eligible: 5, on_release: 3, reported: { ...reported, failed: 1 } });
    expect(total).toBe(4);
    expect(buckets.reduce((n, b) => n + b.count, 0)).toBe(4);
  });

  it('counts statuses it does not know as updating, under their own names, and ignores missing ones', () => {
    const { buckets } = summarizeRollout({ cohort_devices: 10, eligible: 0, on_release: 0, reported: { soaking: 2, succeeded: 3, deferred: undefined, resting: 1 } });
    const updating = buckets.find((b) => b.key === 'in_progress')!;
    expect(updating.count).toBe(3);
    expect(updating.statuses).toEqual([{ status: 'soaking', count: 2, label: 'soaking' }, { status: 'resting', count: 1, label: 'resting' }]);
    expect(buckets.find((b) => b.key === 'on_it')!.count).toBe(3);
  });

  it('counts only confirmed devices as on it on a release with a soak, and installed ones as soaking', () => {
    const { buckets } = summarizeRollout({ cohort_devices: 10, eligible: 10, on_release: 0, soak_seconds: 600, reported: { ...reported, installed: 4, confirmed: 3, failed: 1 } });
    expect(counts(buckets)).toMatchObject({ on_it: [3, 30], in_progress: [4, 40], failed: [1, 10] });
    expect(buckets.find((b) => b.key === 'in_progress')!.statuses).toEqual([{ status: 'installed', count: 4, label: 'soaking' }]);
    expect(statusFilterOf('on_it', ['installed', 'confirmed'], true)).toBe('confirmed');
    expect(statusFilterOf('in_progress', ['downloading', 'installed', 'confirmed'], true)).toBe('downloading,installed');
    // Without a soak, installed and confirmed are both on it.
    expect(counts(summarizeRollout({ cohort_devices: 10, eligible: 10, on_release: 0, reported: { ...reported, installed: 4, confirmed: 3 } }).buckets).on_it).toEqual([7, 70]);
  });

  it('shows a small non-zero share as 1 %, and an empty cohort as 0 %', () => {
    expect(summarizeRollout({ cohort_devices: 1000, eligible: 0, on_release: 1, reported }).buckets[0].percent).toBe(1);
    expect(summarizeRollout({ cohort_devices: 0, eligible: 0, on_release: 0, reported }).buckets.every((b) => b.percent === 0)).toBe(true);
  });
});

describe('releaseState', () => {
  const release = { name: 'r1', disabled: false, halted_at: null, schedule_date: null, next_release_prn: null };
  const done = { cohort_devices: 4, eligible: 0, on_release: 4, reported: { ...reported, installed: 4 } };
  it('never calls a superseded or finished release rolling', () => {
    expect(releaseState({ ...release, next_release_prn: 'prn:1:x:release:y' }, done).key).toBe('superseded');
    expect(releaseState(release, done).key).toBe('complete');
  });
  it('names the release in its sentence, and puts halts and cancels first', () => {
    expect(releaseState({ ...release, disabled: true, halted_at: '2026-01-01T00:00:00Z', next_release_prn: 'x' }, done)).toMatchObject({ key: 'halted', sentence: expect.stringContaining('release r1') });
    expect(releaseState({ ...release, cancelled_at: '2026-01-01T00:00:00Z', paused_at: '2026-01-01T00:00:00Z' }, done).key).toBe('cancelled');
    expect(releaseState({ ...release, paused_at: '2026-01-01T00:00:00Z' }, done).key).toBe('paused');
  });
  it('is rolling with failures while some devices failed, scheduled before its date', () => {
    expect(releaseState(release, { cohort_devices: 4, eligible: 3, on_release: 0, reported: { ...reported, failed: 1 } }).key).toBe('rolling_with_failures');
    expect(releaseState({ ...release, schedule_date: '2030-01-01T00:00:00Z' }, undefined, Date.parse('2026-01-01T00:00:00Z')).key).toBe('scheduled');
  });
});
