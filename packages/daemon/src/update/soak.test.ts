import { describe, expect, it } from 'vitest';
import { soakCheckDueAt, soakCheckInterval } from './soak.ts';
import { INITIAL_STATE, transition, type DaemonState, type Job } from './state.ts';

const job: Job = { release_prn: 'prn:r', bundle_prn: 'prn:b', release_version: '2.0.0', entries: [], started_at: '2026-11-28T12:00:00.000Z', soak_seconds: 600 };
const AT = '2026-11-28T12:05:00.000Z';

describe('soak pace', () => {
  it('checks every tenth of the soak, between 1 and 60 seconds', () => {
    expect(soakCheckInterval(5)).toBe(1);
    expect(soakCheckInterval(100)).toBe(10);
    expect(soakCheckInterval(86_400)).toBe(60);
  });

  it('checks at once after a start, then every interval, with one check just at the end of the soak', () => {
    const soak = { release_prn: 'prn:r', bundle_prn: 'prn:b', seconds: 100, started_at: AT };
    const start = Date.parse(AT);
    expect(soakCheckDueAt(soak, null)).toBe(start);
    expect(soakCheckDueAt(soak, start + 10_000)).toBe(start + 20_000);
    expect(soakCheckDueAt(soak, start + 95_000)).toBe(start + 100_000);
    expect(soakCheckDueAt(soak, start + 100_000)).toBe(start + 110_000);
  });
});

describe('soak state', () => {
  const installing: DaemonState = { ...INITIAL_STATE, phase: { name: 'installing', job, installed: [], reboot: false } };

  it('starts a soak when an install of a release with one finishes, and none without', () => {
    expect(transition(installing, { type: 'all_installed', at: AT }).soak).toEqual({ release_prn: 'prn:r', bundle_prn: 'prn:b', seconds: 600, started_at: AT });
    const plain = { ...installing, phase: { ...installing.phase, job: { ...job, soak_seconds: null } } } as DaemonState;
    expect(transition(plain, { type: 'all_installed', at: AT }).soak).toBeNull();
    const confirming: DaemonState = { ...INITIAL_STATE, phase: { name: 'confirming', job } };
    expect(transition(confirming, { type: 'confirmed', at: AT }).soak?.seconds).toBe(600);
  });

  it('reports a failed check within the soak as failed and ends it; a passed soak ends quietly', () => {
    const soaking = transition(installing, { type: 'all_installed', at: AT });
    const failed = transition(soaking, { type: 'soak_failed', reason: 'health_check exited with 1', at: AT });
    expect(failed.soak).toBeNull();
    expect(failed.pending_reports.at(-1)).toEqual({ status: 'failed', release_prn: 'prn:r', bundle_prn: 'prn:b', reason: 'health_check exited with 1' });
    expect(failed.running.release_prn).toBe('prn:r');
    const passed = transition(soaking, { type: 'soak_ended' });
    expect(passed.soak).toBeNull();
    expect(passed.pending_reports).toEqual(soaking.pending_reports);
    expect(() => transition(passed, { type: 'soak_failed', reason: 'x', at: AT })).toThrow();
  });

  it('ends a soak when a new install is offered', () => {
    const soaking = transition(installing, { type: 'all_installed', at: AT });
    expect(transition(soaking, { type: 'offered', job: { ...job, release_prn: 'prn:r3' } }).soak).toBeNull();
  });
});
