import { describe, expect, it } from 'vitest';
import { updateAttempts } from '../../src/features/devices/update-history';

const report = (at: string, status: string, release: string | null, reason?: string) => ({ inserted_at: `2026-01-01T00:00:${at}Z`, data: { data: { status, release, bundle: 'prn:b', progress: null, reason: reason ?? null } } });

describe('updateAttempts', () => {
  it('groups reports into attempts per release, newest first, with the failure reason', () => {
    const attempts = updateAttempts([report('03', 'failed', 'r1', 'disk full'), report('01', 'downloading', 'r1'), report('02', 'installing', 'r1'), report('10', 'downloading', 'r2')]);
    expect(attempts.map((a) => [a.releasePrn, a.status, a.finished, a.reason])).toEqual([
      ['r2', 'downloading', false, null],
      ['r1', 'failed', true, 'disk full'],
    ]);
    expect(attempts[1].steps.map((s) => s.status)).toEqual(['downloading', 'installing', 'failed']);
  });

  it('starts a new attempt when a release is tried again after it finished', () => {
    const attempts = updateAttempts([report('01', 'failed', 'r1', 'boom'), report('02', 'downloading', 'r1'), report('03', 'installed', 'r1')]);
    expect(attempts.map((a) => [a.status, a.steps.length, a.reason])).toEqual([
      ['installed', 2, null],
      ['failed', 1, 'boom'],
    ]);
  });

  it('adds a soak\'s healthy reports to the install they follow, which stays finished', () => {
    const attempts = updateAttempts([report('01', 'installing', 'r1'), report('02', 'installed', 'r1'), report('03', 'healthy', 'r1'), report('04', 'healthy', 'r1')]);
    expect(attempts.map((a) => [a.status, a.finished, a.steps.length])).toEqual([['installed', true, 4]]);
  });

  it('keeps a bundle installed outside any release apart', () => {
    expect(updateAttempts([report('01', 'installed', null)])[0]).toMatchObject({ releasePrn: null, bundlePrn: 'prn:b', finished: true });
  });
});
