/**
 * Maintenance windows over the real device API: outside the windows a device gets no new
 * release and the explanation says when the next opens; the release's windows replace the
 * cohort's; the dry run counts the devices; bad windows are refused naming the part.
 * The server's clock is the platform's injectable one (Platform.now).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceEnrollment, type EnrolledDevice } from '../support/device-json-client';
import { createFleet, type FleetBundle } from '../support/fleet';
import { expectFieldError } from '../support/resource-checks';
import { useTestServer } from '../support/server';

const t = useTestServer();
const enroll = deviceEnrollment(t);

// Saturday 2026-11-28 12:00 UTC; the cohort's window opens weekdays 22:00 Berlin (21:00 UTC).
let clock = new Date('2026-11-28T12:00:00Z');
const NIGHTLY = [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '04:00', time_zone: 'Europe/Berlin' }];

let device: EnrolledDevice;
let b2: FleetBundle;
let cohortPrn: string;
let r1: any;
let r2: any;

beforeAll(async () => {
  t.server.platform.now = () => clock;
  const fleet = await createFleet(t.api);
  const b1 = await fleet.bundle();
  b2 = await fleet.bundle();
  device = await enroll.device(t);
  const productPrn = (await t.api('GET', `/devices/${device.prn}`)).body.device.product_prn;
  const cohort = await t.api('POST', '/cohorts', { name: `windows-${Date.now()}`, product_prn: productPrn, maintenance_windows: NIGHTLY });
  expect(cohort.status, JSON.stringify(cohort.body)).toBe(201);
  cohortPrn = cohort.body.cohort.prn;
  expect(cohort.body.cohort.maintenance_windows).toEqual(NIGHTLY);
  expect((await t.api('PATCH', `/devices/${device.prn}`, { cohort_prn: cohortPrn })).status).toBe(200);
  const base = { cohort_prn: cohortPrn, required: false, schedule_date: null };
  r1 = (await t.api('POST', '/releases', { ...base, bundle_prn: b1.prn, name: 'r1' })).body.release;
  r2 = (await t.api('POST', '/releases', { ...base, bundle_prn: b2.prn, name: 'r2' })).body.release;
});

afterAll(() => {
  delete t.server.platform.now;
});

const check = async () => (await device.api('GET', '/update', undefined, { headers: { 'canopy-release-prn': r1.prn } })).body;

describe('maintenance windows', () => {
  it('offers nothing new outside the cohort window and says when it opens', async () => {
    expect(r2.maintenance_windows).toBeNull();
    expect((await check()).status).toBe('no_update');
    const explain = (await t.api('GET', `/devices/${device.prn}/update/explain?release_prn=${r1.prn}`)).body;
    const step = explain.steps.find((s: any) => s.reason === 'outside_maintenance_window');
    expect(step, JSON.stringify(explain.steps)).toMatchObject({ subject_prn: r2.prn, outcome: 'skipped', detail: { next_window_at: '2026-11-30T21:00:00.000Z' } });
  });

  it('offers it once the window opens', async () => {
    clock = new Date('2026-11-30T21:00:00Z');
    expect((await check()).status).toBe('update');
    clock = new Date('2026-11-28T12:00:00Z');
  });

  it("lets the release's own windows replace the cohort's, and the cohort's changes apply at once", async () => {
    const always = [{ days: ['sat'], start: '00:00', end: '23:59', time_zone: 'UTC' }];
    const patched = await t.api('PATCH', `/releases/${r2.prn}`, { maintenance_windows: always });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect((await check()).status).toBe('update');
    expect((await t.api('PATCH', `/releases/${r2.prn}`, { maintenance_windows: null })).status).toBe(200);
    expect((await check()).status).toBe('no_update');
    expect((await t.api('PATCH', `/cohorts/${cohortPrn}`, { maintenance_windows: null })).body.cohort.maintenance_windows).toBeNull();
    expect((await check()).status).toBe('update');
    expect((await t.api('PATCH', `/cohorts/${cohortPrn}`, { maintenance_windows: NIGHTLY })).status).toBe(200);
    expect((await check()).status).toBe('no_update');
  });

  it('counts the devices outside a window in the dry run, with the next opening', async () => {
    const dry = await t.api('POST', '/releases/dry_run', { cohort_prn: cohortPrn, bundle_prn: b2.prn, name: 'r3', required: false, schedule_date: null });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    // The device sits on r1 (its last check's write) and r3 is the latest, closed now.
    expect(dry.body.dry_run).toMatchObject({ valid: true, eligible: 0, next_window_at: '2026-11-30T21:00:00.000Z' });
    expect(dry.body.dry_run.not_eligible.outside_maintenance_window).toBe(1);
    // A numeric phase is counted as if each device held a slot, except outside the windows.
    const phased = await t.api('POST', '/releases/dry_run', { cohort_prn: cohortPrn, bundle_prn: b2.prn, name: 'r3', required: false, schedule_date: null, phase_value: 0.5 });
    expect(phased.body.dry_run).toMatchObject({ eligible: 0, would_claim: 0 });
    expect(phased.body.dry_run.not_eligible.outside_maintenance_window).toBe(1);
  });

  it('refuses bad windows naming the part, writing nothing', async () => {
    const bad = [{ days: ['mon'], start: '22:00', end: '04:00', time_zone: 'Mars/Olympus' }];
    expectFieldError(await t.api('PATCH', `/releases/${r2.prn}`, { maintenance_windows: bad }), 'maintenance_windows[0].time_zone', 'invalid');
    expectFieldError(await t.api('PATCH', `/cohorts/${cohortPrn}`, { maintenance_windows: [{ ...NIGHTLY[0], start: '25:00' }] }), 'maintenance_windows[0].start', 'invalid');
    expect((await t.api('GET', `/releases/${r2.prn}`)).body.release.maintenance_windows).toBeNull();
    expect((await t.api('GET', `/cohorts/${cohortPrn}`)).body.cohort.maintenance_windows).toEqual(NIGHTLY);
  });

  it('keeps another organization out of the cohort', async () => {
    const other = await t.createOrganization();
    expect((await other.api('PATCH', `/cohorts/${cohortPrn}`, { maintenance_windows: null })).status).toBe(404);
  });
});
