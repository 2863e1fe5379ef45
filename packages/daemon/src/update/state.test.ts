import { describe, expect, it } from 'vitest';
import { INITIAL_STATE, progressReportDue, reportReason, transition, TransitionError, type DaemonState, type Job, type UpdateEvent } from './state.ts';

const job: Job = { release_prn: 'prn:r', bundle_prn: 'prn:b', release_version: '2.0.0', entries: [], started_at: '2026-01-01T00:00:00Z' };
const run = (events: UpdateEvent[], from: DaemonState = INITIAL_STATE) => events.reduce(transition, from);
const statuses = (state: DaemonState) => state.pending_reports.map((r) => r.status);

describe('update state machine', () => {
  it('goes idle -> downloading -> verifying -> installing -> idle without a reboot, then runs the new release', () => {
    const state = run([{ type: 'offered', job }, { type: 'progress', progress: 0.5 }, { type: 'downloaded' }, { type: 'verified' }, { type: 'entry_installed', binary_prn: 'x', reboot: false }, { type: 'all_installed' }]);
    expect(state.phase).toEqual({ name: 'idle' });
    expect(state.running).toEqual({ release_prn: 'prn:r', bundle_prn: 'prn:b', release_version: '2.0.0' });
    expect(statuses(state)).toEqual(['downloading', 'downloading', 'installing', 'installed']);
    expect(state.pending_reports[1]).toMatchObject({ progress: 0.5, release_prn: 'prn:r', bundle_prn: 'prn:b' });
  });

  it('reboots, takes the next start as the boot, confirms', () => {
    const rebooting = run([{ type: 'offered', job }, { type: 'downloaded' }, { type: 'verified' }, { type: 'entry_installed', binary_prn: 'x', reboot: true, slot: 'b' }, { type: 'all_installed' }]);
    expect(rebooting.phase).toMatchObject({ name: 'rebooting', slot: 'b' });
    expect(rebooting.running.release_prn).toBeNull();
    const confirming = transition(rebooting, { type: 'started' });
    expect(confirming.phase).toMatchObject({ name: 'confirming', slot: 'b' });
    const done = transition(confirming, { type: 'confirmed', slot: 'b' });
    expect(done.running).toMatchObject({ release_prn: 'prn:r', slot: 'b' });
    expect(statuses(done)).toEqual(['downloading', 'installing', 'rebooting', 'installed']);
  });

  it('a start in the same boot (same boot id) is a restart, not the reboot: it stays rebooting', () => {
    const rebooting = run([{ type: 'offered', job }, { type: 'downloaded' }, { type: 'verified' }, { type: 'entry_installed', binary_prn: 'x', reboot: true, slot: 'b' }, { type: 'all_installed', boot_id: 'boot-1' }]);
    expect(rebooting.phase).toMatchObject({ name: 'rebooting', boot_id: 'boot-1' });
    expect(transition(rebooting, { type: 'started', boot_id: 'boot-1' }).phase.name).toBe('rebooting');
    expect(transition(rebooting, { type: 'started', boot_id: 'boot-2' }).phase).toMatchObject({ name: 'confirming', slot: 'b' });
    // No boot id on this system: the next start is taken as the boot, as before.
    expect(transition(rebooting, { type: 'started' }).phase.name).toBe('confirming');
  });

  it('a rollback keeps the running release and reports the reason', () => {
    const confirming = run([{ type: 'offered', job }, { type: 'downloaded' }, { type: 'verified' }, { type: 'entry_installed', binary_prn: 'x', reboot: true, slot: 'b' }, { type: 'all_installed' }, { type: 'booted' }]);
    const state = transition(confirming, { type: 'rolled_back', reason: 'health check exited 1', at: 't', slot: 'a' });
    expect(state.phase.name).toBe('idle');
    expect(state.running).toMatchObject({ release_prn: null, slot: 'a' });
    expect(state.pending_reports.at(-1)).toEqual({ status: 'rolled_back', release_prn: 'prn:r', bundle_prn: 'prn:b', reason: 'health check exited 1' });
    expect(state.held_back).toEqual({ release_prn: 'prn:r', bundle_prn: 'prn:b', outcome: 'rolled_back', failures: 1, at: 't' });
  });

  it('counts consecutive failures of one offer in held_back; an install or another offer clears it', () => {
    const failOnce = (from: DaemonState, offered: Job = job) => run([{ type: 'offered', job: offered }, { type: 'failed', reason: 'x', at: 't' }], from);
    const twice = failOnce(failOnce(INITIAL_STATE));
    expect(twice.held_back).toMatchObject({ bundle_prn: 'prn:b', outcome: 'failed', failures: 2 });
    // The same offer again keeps the count while it runs; a different one starts afresh.
    expect(transition(twice, { type: 'offered', job }).held_back).toMatchObject({ failures: 2 });
    const other = { ...job, release_prn: 'prn:r2' };
    expect(transition(twice, { type: 'offered', job: other }).held_back).toBeNull();
    expect(failOnce(twice, other).held_back).toMatchObject({ release_prn: 'prn:r2', failures: 1 });
    const installed = run([{ type: 'offered', job }, { type: 'downloaded' }, { type: 'verified' }, { type: 'all_installed' }], twice);
    expect(installed.held_back).toBeNull();
  });

  it('a failure in any phase goes back to idle with a failed report; running is unchanged', () => {
    for (const upTo of [[], [{ type: 'downloaded' }], [{ type: 'downloaded' }, { type: 'verified' }]] as UpdateEvent[][]) {
      const state = run([{ type: 'offered', job }, ...upTo, { type: 'failed', reason: 'sha256 mismatch', at: 't' }]);
      expect(state.phase.name).toBe('idle');
      expect(state.running.release_prn).toBeNull();
      expect(state.pending_reports.at(-1)).toMatchObject({ status: 'failed', reason: 'sha256 mismatch' });
      expect(state.last_failure).toEqual({ at: 't', bundle_prn: 'prn:b', reason: 'sha256 mismatch' });
    }
  });

  it('records installed binaries once, so a restart installs only the rest', () => {
    const state = run([{ type: 'offered', job }, { type: 'downloaded' }, { type: 'verified' }, { type: 'entry_installed', binary_prn: 'x', reboot: false }, { type: 'entry_installed', binary_prn: 'x', reboot: false }]);
    expect(state.phase).toMatchObject({ name: 'installing', installed: ['x'] });
    // A restart changes nothing but a pending reboot.
    expect(transition(state, { type: 'started' })).toBe(state);
  });

  it('adds up the bytes fetched against the binaries\' size, deltas used and fallbacks with their reason', () => {
    const at = '2026-01-01T00:00:00Z';
    const state = run([
      { type: 'offered', job },
      { type: 'fetched', binary_prn: 'prn:a', via: 'delta', full_bytes: 1000, wire_bytes: 10, at },
      { type: 'fetched', binary_prn: 'prn:b', via: 'full', full_bytes: 500, wire_bytes: 520, fallback_reason: 'corrupt_delta: sha256 mismatch', at },
    ]);
    expect(state.transfers).toEqual({ full_bytes: 1500, wire_bytes: 530, deltas_used: 1, delta_fallbacks: 1, last_fallback: { at, binary_prn: 'prn:b', reason: 'corrupt_delta: sha256 mismatch' } });
    expect(run([{ type: 'downloaded' }, { type: 'verified' }, { type: 'all_installed' }], state).transfers).toEqual(state.transfers);
    expect(() => run([{ type: 'fetched', binary_prn: 'prn:a', via: 'full', full_bytes: 1, wire_bytes: 1, at }])).toThrow(TransitionError);
  });

  it('refuses events out of order', () => {
    expect(() => run([{ type: 'downloaded' }])).toThrow(TransitionError);
    expect(() => run([{ type: 'offered', job }, { type: 'offered', job }])).toThrow(TransitionError);
    expect(() => run([{ type: 'offered', job }, { type: 'verified' }])).toThrow(TransitionError);
    expect(() => run([{ type: 'failed', reason: 'x', at: 't' }])).toThrow(TransitionError);
    expect(() => run([{ type: 'offered', job }, { type: 'downloaded' }, { type: 'progress', progress: 1 }])).toThrow(TransitionError);
  });

  it('drops sent reports from the front of the queue', () => {
    const state = run([{ type: 'offered', job }, { type: 'downloaded' }, { type: 'verified' }, { type: 'reports_sent', count: 1 }]);
    expect(statuses(state)).toEqual(['installing']);
  });

  it('fits reasons to the API: 1..256 characters', () => {
    expect(reportReason('  ')).toBe('unknown failure');
    expect(reportReason('x'.repeat(300))).toHaveLength(256);
  });

  it('lets a downloading progress report go at most every 5 s', () => {
    expect(progressReportDue(null, 0)).toBe(true);
    expect(progressReportDue(1000, 5999)).toBe(false);
    expect(progressReportDue(1000, 6000)).toBe(true);
  });
});
