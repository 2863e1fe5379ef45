/**
 * Pause, resume and cancel of a release (rollouts/controls.ts) through the admin API, with real
 * devices checking for updates over mutual TLS: a pause stops new offers (a device holding a
 * phase slot keeps its offer), resume clears a pause and a health-gate halt, cancel is final and
 * devices that had not started stay where they are; events, rollout progress, explain, the
 * fleet-wide why not, 4xx and organization isolation.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { deviceEnrollment, type EnrolledDevice } from '../support/device-json-client';
import { createFleet, type FleetBundle } from '../support/fleet';
import { useTestServer } from '../support/server';

const t = useTestServer();
const enroll = deviceEnrollment(t);

let devices: EnrolledDevice[];
let cohortPrn: string;
let b1: FleetBundle;
let b2: FleetBundle;
let r1: any;

beforeAll(async () => {
  const fleet = await createFleet(t.api);
  b1 = await fleet.bundle();
  b2 = await fleet.bundle();
  devices = [];
  for (let i = 0; i < 3; i++) devices.push(await enroll.device(t));
  const productPrn = (await t.api('GET', `/devices/${devices[0].prn}`)).body.device.product_prn;
  cohortPrn = (await t.api('POST', '/cohorts', { name: `controls-${Date.now()}`, product_prn: productPrn })).body.cohort.prn;
  for (const device of devices) expect((await t.api('PATCH', `/devices/${device.prn}`, { cohort_prn: cohortPrn })).status).toBe(200);
  r1 = (await t.api('POST', '/releases', { cohort_prn: cohortPrn, required: false, schedule_date: null, bundle_prn: b1.prn, name: 'r1' })).body.release;
});

const newRelease = async (name: string, extra: Record<string, unknown> = {}) => {
  const res = await t.api('POST', '/releases', { cohort_prn: cohortPrn, required: false, schedule_date: null, bundle_prn: b2.prn, name, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.release;
};
/** A device on r1 asks for an update, as the daemon does. */
const check = async (device: EnrolledDevice) => (await device.api('GET', '/update?expand=release', undefined, { headers: { 'canopy-release-prn': r1.prn } })).body;
const control = (release: any, action: string, api = t.api) => api('POST', `/releases/${release.prn}/${action}`);
const events = async (subtype: string, release: any) =>
  (await t.api('GET', `/events?type=release&subtype=${subtype}`)).body.events.filter((event: any) => event.resource_prn === release.prn);

describe('pause and resume', () => {
  it('a pause stops new offers but not the devices holding a phase slot; resume offers again; each recorded once', async () => {
    const r2 = await newRelease('r2', { phase_value: 2 });
    // devices[0] takes a slot of the phase before the pause.
    expect(await check(devices[0])).toMatchObject({ status: 'update', release: { prn: r2.prn } });

    const paused = await control(r2, 'pause');
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.body.release).toMatchObject({ prn: r2.prn, paused_at: expect.stringMatching(/^\d{4}-/), cancelled_at: null, disabled: false });
    expect((await control(r2, 'pause')).body.release.paused_at).toBe(paused.body.release.paused_at);
    expect(await events('paused', r2)).toHaveLength(1);

    expect((await check(devices[1])).status).toBe('no_update');
    expect(await check(devices[0])).toMatchObject({ status: 'update', release: { prn: r2.prn, paused_at: paused.body.release.paused_at } });
    const explain = (await t.api('GET', `/devices/${devices[1].prn}/update/explain`, undefined, { headers: {} })).body;
    expect(explain.steps.some((step: any) => step.subject_prn === r2.prn && step.reason === 'paused')).toBe(true);
    const rollout = (await t.api('GET', `/releases/${r2.prn}/rollout`)).body.rollout;
    expect(rollout).toMatchObject({ paused_at: paused.body.release.paused_at, cancelled_at: null });

    const resumed = await control(r2, 'resume');
    expect(resumed.body.release).toMatchObject({ paused_at: null, halted_at: null });
    expect((await check(devices[1])).status).toBe('update');
    const [event] = await events('resumed', r2);
    expect(event.data.data).toEqual({ release: r2.prn, was_paused: true, was_halted: false });
    // Nothing to resume: no change, no event.
    expect((await control(r2, 'resume')).status).toBe(200);
    expect(await events('resumed', r2)).toHaveLength(1);
    // Only the latest release may be phased: complete the phase for the releases that follow.
    expect((await t.api('PATCH', `/releases/${r2.prn}`, { phase_value: 1 })).status).toBe(200);
  });

  it('resume clears a health-gate halt and enables the release again', async () => {
    const r3 = await newRelease('r3', { halt_failure_ratio: 0.5, halt_min_reports: 1 });
    const failed = await devices[2].api('POST', '/update/reports', { status: 'failed', release_prn: r3.prn, bundle_prn: b2.prn, reason: 'boom' });
    expect(failed.status).toBe(201);
    expect((await t.api('GET', `/releases/${r3.prn}`)).body.release).toMatchObject({ disabled: true, halted_at: expect.any(String) });
    const resumed = await control(r3, 'resume');
    expect(resumed.body.release).toMatchObject({ disabled: false, halted_at: null, paused_at: null });
    expect((await events('resumed', r3))[0].data.data).toMatchObject({ was_paused: false, was_halted: true });
  });
});

describe('cancel', () => {
  it('is final: devices that had not started stay where they are, pause and resume answer 409', async () => {
    const r4 = await newRelease('r4');
    expect((await check(devices[1])).status).toBe('update');
    const cancelled = await control(r4, 'cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.release.cancelled_at).toMatch(/^\d{4}-/);
    // r2 and r3 sit between r1 and r4 and are usable, so walk back to r3 rather than r4.
    const answer = await check(devices[1]);
    expect(answer.release?.prn).not.toBe(r4.prn);
    const rollout = (await t.api('GET', `/releases/${r4.prn}/rollout`)).body.rollout;
    expect(rollout.cancelled_at).toBe(cancelled.body.release.cancelled_at);
    await expect.poll(async () => (await t.api('GET', `/releases/${r4.prn}/rollout`)).body.rollout.not_eligible.release_cancelled).toBe(3);
    for (const action of ['pause', 'resume']) {
      const refused = await control(r4, action);
      expect(refused.status).toBe(409);
      expect(refused.body.errors[0].code).toBe('release_cancelled');
    }
    expect((await control(r4, 'cancel')).body.release.cancelled_at).toBe(cancelled.body.release.cancelled_at);
    expect(await events('cancelled', r4)).toHaveLength(1);
    // A PATCH cannot undo it (the field is read-only).
    expect((await t.api('PATCH', `/releases/${r4.prn}`, { cancelled_at: null, description: 'x' })).body.release.cancelled_at).toBe(cancelled.body.release.cancelled_at);
  });
});

describe('access', () => {
  it('404 across organizations and for an unknown release, 403 for a read key, 401 without a key; nothing written', async () => {
    const other = await t.createOrganization();
    for (const action of ['pause', 'resume', 'cancel']) {
      expect((await control(r1, action, other.api)).status).toBe(404);
      expect((await t.api('POST', `/releases/${r1.prn.replace(/[0-9a-f]{12}$/, '000000000000')}/${action}`)).status).toBe(404);
      expect((await t.api('POST', `/releases/${r1.prn}/${action}`, undefined, { key: await t.keyWithRole('read') })).status).toBe(403);
      expect((await t.api('POST', `/releases/${r1.prn}/${action}`, undefined, { key: null })).status).toBe(401);
    }
    expect((await t.api('GET', `/releases/${r1.prn}`)).body.release).toMatchObject({ paused_at: null, cancelled_at: null });
  });
});
