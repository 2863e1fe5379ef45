/**
 * The penalty box (rollouts/penalty-box.ts) with real devices over mutual TLS: failed reports
 * box a device at the release's line, the update check then skips the release for it and its
 * explanation says until when, the rest ends and the release is offered once more (one more
 * failure boxes it again), an operator releases it; per release, per device and in rollout
 * progress; settings validated; organization isolation.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { deviceEnrollment, type EnrolledDevice } from '../support/device-json-client';
import { createFleet, type FleetBundle } from '../support/fleet';
import { expectFieldError } from '../support/resource-checks';
import { useTestServer } from '../support/server';

const t = useTestServer();
const enroll = deviceEnrollment(t);

let devices: EnrolledDevice[];
let b1: FleetBundle;
let b2: FleetBundle;
let r1: any;
let r2: any;

// Real time: the device API's checks take the server's clock. Long enough for the checks between.
const REST_SECONDS = 2;

beforeAll(async () => {
  const fleet = await createFleet(t.api);
  b1 = await fleet.bundle();
  b2 = await fleet.bundle();
  devices = [await enroll.device(t), await enroll.device(t)];
  const productPrn = (await t.api('GET', `/devices/${devices[0].prn}`)).body.device.product_prn;
  const cohortPrn = (await t.api('POST', '/cohorts', { name: `penalty-${Date.now()}`, product_prn: productPrn })).body.cohort.prn;
  for (const device of devices) expect((await t.api('PATCH', `/devices/${device.prn}`, { cohort_prn: cohortPrn })).status).toBe(200);
  const base = { cohort_prn: cohortPrn, required: false, schedule_date: null };
  r1 = (await t.api('POST', '/releases', { ...base, bundle_prn: b1.prn, name: 'r1' })).body.release;
  const created = await t.api('POST', '/releases', { ...base, bundle_prn: b2.prn, name: 'r2', penalty_box: { failures: 2, window_seconds: null, rest_seconds: REST_SECONDS } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  r2 = created.body.release;
});

const fail = (device: EnrolledDevice) => device.api('POST', '/update/reports', { status: 'failed', release_prn: r2.prn, bundle_prn: b2.prn, reason: 'boom' });
const check = async (device: EnrolledDevice) => (await device.api('GET', '/update?expand=release', undefined, { headers: { 'canopy-release-prn': r1.prn } })).body;

describe('penalty box', () => {
  it('is answered on the release, null meaning the defaults, and refuses settings out of range naming the field', async () => {
    expect(r2.penalty_box).toEqual({ failures: 2, window_seconds: null, rest_seconds: REST_SECONDS });
    expect(r1.penalty_box).toBeNull();
    const refused = await t.api('PATCH', `/releases/${r1.prn}`, { penalty_box: { failures: 0, window_seconds: null, rest_seconds: 1 } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].context.field).toMatch(/penalty_box.failures/);
    expectFieldError(await t.api('PATCH', `/releases/${r1.prn}`, { penalty_box: { failures: 3, window_seconds: null } }), 'penalty_box.rest_seconds', 'required');
    expect((await t.api('GET', `/releases/${r1.prn}`)).body.release.penalty_box).toBeNull();
  });

  it('boxes a device at the line, says until when, lets it go after the rest, then boxes it at its next failure', async () => {
    const [device, other] = devices;
    expect((await check(device)).status).toBe('update');
    expect((await fail(device)).status).toBe(201);
    expect((await check(device)).status).toBe('update'); // one failure of two
    expect((await fail(device)).status).toBe(201);
    expect((await check(device)).status).toBe('no_update');
    expect((await check(other)).status).toBe('update');

    const explain = (await t.api('GET', `/devices/${device.prn}/update/explain`)).body;
    const step = explain.steps.find((s: any) => s.reason === 'penalty_box');
    expect(step).toMatchObject({ subject_prn: r2.prn, outcome: 'skipped' });
    const listed = (await t.api('GET', `/releases/${r2.prn}/penalty_box`)).body.penalty_box;
    expect(listed).toEqual([{ release_prn: r2.prn, device_prn: device.prn, resting: true, rest_until: expect.any(String), rests: 1, failures: 0 }]);
    expect(Date.parse(step.detail.rest_until)).toBe(Date.parse(listed[0].rest_until));
    const { resting: _resting, ...entry } = listed[0];
    expect((await t.api('GET', `/devices/${device.prn}/penalty_box`)).body.penalty_box).toEqual([expect.objectContaining(entry)]);
    expect((await t.api('GET', `/releases/${r2.prn}/rollout`)).body.rollout).toMatchObject({ resting: 1, updating: 0, succeeded: 0, reported: { failed: 1 } });

    // The rest ends: offered once more; a single failure boxes it again.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(listed[0].rest_until) - Date.now()) + 20));
    expect((await check(device)).status).toBe('update');
    expect((await t.api('GET', `/releases/${r2.prn}/rollout`)).body.rollout.resting).toBe(0);
    expect((await fail(device)).status).toBe(201);
    expect((await check(device)).status).toBe('no_update');
    expect((await t.api('GET', `/devices/${device.prn}/penalty_box`)).body.penalty_box[0]).toMatchObject({ resting: true, rests: 2 });
  });

  it('an operator releases the device: offered at once, its count starts afresh', async () => {
    const [device] = devices;
    const other = await t.createOrganization();
    expect((await other.api('DELETE', `/releases/${r2.prn}/penalty_box/${device.prn}`)).status).toBe(404);
    expect((await other.api('GET', `/devices/${device.prn}/penalty_box`)).status).toBe(404);
    expect((await other.api('GET', `/releases/${r2.prn}/penalty_box`)).status).toBe(404);
    expect((await t.api('DELETE', `/releases/${r2.prn}/penalty_box/${device.prn}`, undefined, { key: await t.keyWithRole('read') })).status).toBe(403);
    expect((await t.api('DELETE', `/releases/${r2.prn}/penalty_box/${device.prn}`)).status).toBe(204);
    expect((await t.api('DELETE', `/releases/${r2.prn}/penalty_box/${device.prn}`)).status).toBe(404);
    expect((await check(device)).status).toBe('update');
    expect((await fail(device)).status).toBe(201);
    expect((await check(device)).status).toBe('update'); // the line is 2 again
    expect((await t.api('GET', `/releases/${r2.prn}/penalty_box`)).body.penalty_box).toEqual([expect.objectContaining({ resting: false, rests: 0, failures: 1 })]);
  });
});
