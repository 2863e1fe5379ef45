/**
 * The concurrency cap across two server processes on one PostgreSQL (updates/slot-claims.ts):
 * many devices check at once through both, install and report; the devices holding a place never
 * exceed the cap, counted two ways: on the client (offered and not yet reported: each of those
 * holds a place, exactly, at every moment) and sampled from the database. Then a place whose
 * device never reports is freed after the release's slot timeout. PostgreSQL only.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrolledDevice } from '../support/device-json-client';
import { enrolledCohort, processApi, startTwoProcesses, type TwoProcesses } from '../support/two-processes';

const DEVICES = 60;
const CAP = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!process.env.DATABASE_URL)('the concurrency cap across two server processes', () => {
  let processes: TwoProcesses;
  beforeAll(async () => {
    processes = await startTwoProcesses('canopy-cap-', { CANOPY_CAP_RETRY_SECONDS: '1' });
  }, 300_000);
  afterAll(async () => {
    await processes?.close();
  });

  it('never lets more devices update at once than the cap, and frees a timed-out place', { timeout: 300_000 }, async () => {
    const { servers, targets } = processes;
    const api = processApi(servers[0].url);
    const { fleet, devices, cohortPrn } = await enrolledCohort(api, targets[0], DEVICES, 'capped');
    const [one, two] = [await fleet.bundle(), await fleet.bundle()];
    const base = { cohort_prn: cohortPrn, required: false, schedule_date: null };
    const r1 = (await api('POST', '/releases', { ...base, bundle_prn: one.prn, name: 'r1' })).body.release.prn;
    // Bad values answer 422 naming the field.
    const bad = await api('POST', '/releases', { ...base, bundle_prn: two.prn, name: 'bad', max_concurrent: 0 });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('max_concurrent');
    const created = await api('POST', '/releases', { ...base, bundle_prn: two.prn, name: 'r2', max_concurrent: CAP, slot_timeout_seconds: 10 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.release).toMatchObject({ max_concurrent: CAP, slot_timeout_seconds: 10 });
    const r2 = created.body.release.prn;

    // The database's view, sampled every few milliseconds by its own connection.
    const sampler = new pg.Client({ connectionString: processes.database.url! });
    await sampler.connect();
    let sampling = true;
    let sampledMax = 0;
    let samples = 0;
    const sampling$ = (async () => {
      while (sampling) {
        const { rows } = await sampler.query('select count(*)::int as n from update_slots where expires_at > now()');
        sampledMax = Math.max(sampledMax, rows[0].n);
        samples++;
        await sleep(2);
      }
    })();

    // The client's view: offered and not yet reported. Each such device holds a place.
    let holding = 0;
    let holdingMax = 0;
    let refusals = 0;
    const runDevice = async (device: EnrolledDevice, index: number) => {
      const via = device.via(targets[index % 2]);
      for (;;) {
        const answer = await via('GET', '/update', undefined, { headers: { 'canopy-release-prn': r1 } });
        expect(answer.status).toBe(200);
        if (answer.body.status === 'retry_later') {
          expect(answer.body.retry_after).toBeGreaterThanOrEqual(1);
          refusals++;
          await sleep(20 + Math.random() * 40);
          continue;
        }
        expect(answer.body.status).toBe('update');
        holding++;
        holdingMax = Math.max(holdingMax, holding);
        await sleep(40 + Math.random() * 40); // installing
        holding--;
        const report = await via('POST', '/update/reports', { status: 'installed', release_prn: r2, bundle_prn: two.prn });
        expect(report.status).toBe(201);
        return;
      }
    };
    await Promise.all(devices.map(runDevice));
    sampling = false;
    await sampling$;
    await sampler.end();

    expect(holdingMax).toBeLessThanOrEqual(CAP);
    expect(sampledMax).toBeLessThanOrEqual(CAP);
    // The cap was actually reached, and devices were turned away.
    expect(Math.max(holdingMax, sampledMax)).toBe(CAP);
    expect(refusals).toBeGreaterThan(0);
    expect(samples).toBeGreaterThan(10);
    const rollout = (await processApi(servers[1].url)('GET', `/releases/${r2}/rollout`)).body.rollout;
    expect(rollout).toMatchObject({ max_concurrent: CAP, updating_now: 0, succeeded: DEVICES });

    // A place whose device never reports: the third release, cap 1, 10 s timeout.
    const three = await fleet.bundle();
    const r3 = (await api('POST', '/releases', { ...base, bundle_prn: three.prn, name: 'r3', max_concurrent: 1, slot_timeout_seconds: 10 })).body.release.prn;
    const [silent, waiting] = devices;
    const ask = (device: EnrolledDevice) => device.via(targets[1])('GET', '/update?expand=release', undefined, { headers: { 'canopy-release-prn': r2 } });
    expect((await ask(silent)).body).toMatchObject({ status: 'update', release: { prn: r3 } });
    expect((await ask(waiting)).body).toMatchObject({ status: 'retry_later', retry_after: expect.any(Number), release: null });
    const explained = await api('GET', `/devices/${waiting.prn}/update/explain?release_prn=${encodeURIComponent(r2)}`);
    expect(explained.body).toMatchObject({ status: 'retry_later', retry_after: expect.any(Number) });
    expect(explained.body.steps.at(-1)).toMatchObject({ step: 'concurrency', reason: 'concurrency_full', detail: { max_concurrent: 1, updating: 1 } });
    const heldAt = Date.now();
    expect((await api('GET', `/releases/${r3}/rollout`)).body.rollout.updating_now).toBe(1);
    await sleep(Math.max(0, heldAt + 10_500 - Date.now()));
    expect((await ask(waiting)).body).toMatchObject({ status: 'update', release: { prn: r3 } });
    // The silent device lost its place to the waiting one: now it is the one told to wait.
    expect((await ask(silent)).body.status).toBe('retry_later');
  });
});
