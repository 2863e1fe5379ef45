/** Safe rollouts through the CLI against a real server: dry-run, the health gate's flags, rollout, pause/resume/cancel and revert. */
import { describe, expect, it } from 'vitest';
import { deviceEnrollment } from '../../server/test/support/device-json-client';
import { fleetFixtures } from './support/fixtures';
import { canopy, canopyOk } from './support/run-canopy';
import { useCliEnv, useTestServer } from './support/server';

const server = useTestServer();

/** A real device (mutual TLS) fails a release once, which boxes it; the CLI lets it go. */
async function releaseFromPenaltyBox(versionPrn: string) {
  const device = await deviceEnrollment(server).device(server);
  const productPrn = (await server.api('GET', `/devices/${device.prn}`)).body.device.product_prn;
  const cohort = (await ok(['cohorts', 'create', '--name', 'boxed', '--product-prn', productPrn])).cohort;
  expect((await server.api('PATCH', `/devices/${device.prn}`, { cohort_prn: cohort.prn })).status).toBe(200);
  const bundle = (await ok(['bundles', 'create', '--name', 'boxed', '--artifact-version-prns', versionPrn])).bundle;
  const settings = ['--required', 'false', '--schedule-date', '2025-01-01T00:00:00Z', '--penalty-box', '{"failures": 1, "window_seconds": null, "rest_seconds": 600}'];
  const release = (await ok(['releases', 'create', '--bundle-prn', bundle.prn, '--cohort-prn', cohort.prn, '--name', 'boxed', ...settings])).release;
  const failed = await device.api('POST', '/update/reports', { status: 'failed', release_prn: release.prn, bundle_prn: bundle.prn, reason: 'boom' });
  expect(failed.status, JSON.stringify(failed.body)).toBe(201);
  expect((await ok(['releases', 'penalty-box', release.prn])).penalty_box).toHaveLength(1);
  await ok(['releases', 'penalty-box-release', release.prn, device.prn]);
  expect((await ok(['releases', 'penalty-box', release.prn])).penalty_box).toEqual([]);
}
const env = useCliEnv(server);
const ok = canopyOk(env);

describe('releases dry-run, rollout, pause, resume, cancel and revert', () => {
  it('dry-runs a release without creating it, creates it with a health gate, reads its rollout and reverts it', async () => {
    const { cohort, device, version } = await fleetFixtures(ok, 'rollouts');
    const bundle = (await ok(['bundles', 'create', '--name', 'b1', '--artifact-version-prns', version.prn])).bundle;
    const base = ['--bundle-prn', bundle.prn, '--cohort-prn', cohort.prn, '--required', 'false', '--schedule-date', '2025-01-01T00:00:00Z'];
    const first = (await ok(['releases', 'create', ...base, '--name', 'r1'])).release;

    const dry = (await ok(['releases', 'dry-run', ...base, '--name', 'r2', '--halt-failure-ratio', '0.2', '--halt-min-reports', '20'])).dry_run;
    expect(dry).toMatchObject({ valid: true, errors: [], position: { previous_release_prn: first.prn, next_release_prn: null }, cohort_devices: 1 });
    expect((await ok(['releases', 'list', '--all'])).releases).toHaveLength(1);
    const invalid = (await ok(['releases', 'dry-run', ...base, '--name', 'r2', '--version', 'one'])).dry_run;
    expect(invalid.valid).toBe(false);

    const second = (await ok(['releases', 'create', ...base, '--name', 'r2', '--halt-failure-ratio', '0.2', '--halt-min-reports', '20'])).release;
    expect(second).toMatchObject({ halt_failure_ratio: 0.2, halt_min_reports: 20, halted_at: null });
    const rollout = (await ok(['releases', 'rollout', second.prn])).rollout;
    expect(rollout).toMatchObject({ release_prn: second.prn, cohort_devices: 1, reported: { installed: 0, failed: 0 }, halted_at: null });
    expect(device.prn).toMatch(/:device:/);

    const paused = (await ok(['releases', 'pause', second.prn])).release;
    expect(paused.paused_at).toMatch(/^\d{4}-/);
    expect((await ok(['releases', 'resume', second.prn])).release).toMatchObject({ paused_at: null, halted_at: null });
    const third = (await ok(['releases', 'create', ...base, '--name', 'r3', '--penalty-box', '{"failures": 2, "window_seconds": 180, "rest_seconds": 60}'])).release;
    expect(third.penalty_box).toEqual({ failures: 2, window_seconds: 180, rest_seconds: 60 });
    // Success after a soak: a duration, or null.
    expect((await ok(['releases', 'update', third.prn, '--soak', '30m'])).release.soak_seconds).toBe(1800);
    expect((await ok(['releases', 'rollout', third.prn])).rollout).toMatchObject({ soak_seconds: 1800, soaking: 0, reported: { confirmed: 0 } });
    expect((await ok(['releases', 'update', third.prn, '--soak', 'null'])).release.soak_seconds).toBeNull();
    const badSoak = await canopy(['releases', 'update', third.prn, '--soak', '5 weeks'], env);
    expect(badSoak.code).toBe(2);
    expect(badSoak.stderr).toContain('--soak');
    expect((await ok(['releases', 'penalty-box', third.prn])).penalty_box).toEqual([]);
    expect((await ok(['devices', 'penalty-box', device.prn])).penalty_box).toEqual([]);
    // The concurrency cap: set, shown in the rollout, a bad value refused naming the field.
    const capped = (await ok(['releases', 'update', third.prn, '--max-concurrent', '500', '--slot-timeout-seconds', '1800'])).release;
    expect(capped).toMatchObject({ max_concurrent: 500, slot_timeout_seconds: 1800 });
    expect((await ok(['releases', 'rollout', third.prn])).rollout).toMatchObject({ max_concurrent: 500, updating_now: 0 });
    const badCap = await canopy(['releases', 'update', third.prn, '--max-concurrent', '0'], env);
    expect(badCap.code).toBe(1);
    expect(badCap.stderr).toContain('max_concurrent');
    const notBoxed = await canopy(['releases', 'penalty-box-release', third.prn, device.prn], env);
    expect(notBoxed.code).toBe(1);
    expect(notBoxed.stderr).toContain('not_found');
    await releaseFromPenaltyBox(version.prn);
    expect((await ok(['releases', 'cancel', third.prn])).release.cancelled_at).toMatch(/^\d{4}-/);
    const refused = await canopy(['releases', 'pause', third.prn], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('release_cancelled');

    const reverted = (await ok(['releases', 'revert', second.prn, '--name', 'r1 again', '--version', '1.0.1'])).release;
    expect(reverted).toMatchObject({ name: 'r1 again', version: '1.0.1', required: true, previous_release_prn: third.prn });
    expect((await ok(['releases', 'get', second.prn])).release.disabled).toBe(true);
    const nothing = await canopy(['releases', 'revert', first.prn, '--name', 'x'], env);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('nothing_to_revert_to');
  });
});
