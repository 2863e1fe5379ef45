/**
 * Two server processes on one PostgreSQL receive the reports of one gated release at the same
 * time (each device reports through one of them, over real mutual TLS): the release is halted
 * exactly once, with one `release.halted` event (rollouts/halt.ts locks the release row before
 * it reads the counters). PostgreSQL only: PGlite is one process's embedded database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrolledCohort, processApi, startTwoProcesses, type TwoProcesses } from '../support/two-processes';

const DEVICES = 40;

describe.skipIf(!process.env.DATABASE_URL)('the health gate across two server processes', () => {
  let processes: TwoProcesses;
  beforeAll(async () => {
    processes = await startTwoProcesses('canopy-rollouts-');
  }, 300_000);
  afterAll(async () => {
    await processes?.close();
  });

  it('halts once when reports crossing the line arrive at both at once', { timeout: 300_000 }, async () => {
    const { servers, targets } = processes;
    const api = processApi(servers[0].url);
    const { fleet, devices, cohortPrn } = await enrolledCohort(api, targets[0], DEVICES, 'two');
    const bundle = await fleet.bundle();
    const base = { cohort_prn: cohortPrn, bundle_prn: bundle.prn, required: false, schedule_date: null };
    await api('POST', '/releases', { ...base, name: 'r1' });
    const gated = await api('POST', '/releases', { ...base, name: 'r2', halt_failure_ratio: 0.5, halt_min_reports: 10 });
    expect(gated.status, JSON.stringify(gated.body)).toBe(201);
    const releasePrn = gated.body.release.prn;

    // Every device fails at once, half through each process: from the 10th on, each report is past the line.
    const answers = await Promise.all(
      devices.map((device, i) =>
        device.via(targets[i % 2])('POST', '/update/reports', { status: 'failed', release_prn: releasePrn, bundle_prn: bundle.prn, reason: 'boom' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(devices.map(() => 201));

    const release = (await api('GET', `/releases/${releasePrn}`)).body.release;
    expect(release).toMatchObject({ disabled: true, halted_at: expect.any(String) });
    const events = (await api('GET', '/events?type=release&subtype=halted')).body.events;
    expect(events).toHaveLength(1);
    // The crossing report saw exactly the line: 10 finished, all failed.
    expect(events[0].data.data).toMatchObject({ release: releasePrn, failed: 10, installed: 0 });
    const rollout = (await processApi(servers[1].url)('GET', `/releases/${releasePrn}/rollout`)).body.rollout;
    expect(rollout.reported.failed).toBe(DEVICES);
    expect(rollout.halted_at).toBe(release.halted_at);
  });
});
