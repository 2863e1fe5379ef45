/**
 * Safe rollouts on the admin API (rollouts/routes.ts): the health gate's fields on create and
 * PATCH, rollout progress counted from real device reports over mutual TLS, the halt that the
 * crossing report triggers (once), resume, the dry run (writes nothing), revert, the fleet-wide
 * "why not" by reason, and each route's 4xx and organization isolation.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { deviceEnrollment, type EnrolledDevice } from '../support/device-json-client';
import { createFleet, type Fleet, type FleetBundle } from '../support/fleet';
import { expectFieldError } from '../support/resource-checks';
import { ELIGIBILITY_TTL_MS } from '../../src/rollouts/service';
import { useTestServer } from '../support/server';

const t = useTestServer();
const enroll = deviceEnrollment(t);

let fleet: Fleet;
let devices: EnrolledDevice[];
let cohortPrn: string;
let b1: FleetBundle;
let b2: FleetBundle;
let r1: any;
let r2: any;

const count = async (sql: string) => {
  const result = await t.server.platform.db.execute(sql);
  return Number((result as unknown as { rows: { n: string | number }[] }).rows[0].n);
};

beforeAll(async () => {
  fleet = await createFleet(t.api);
  b1 = await fleet.bundle();
  b2 = await fleet.bundle();
  devices = [];
  for (let i = 0; i < 6; i++) devices.push(await enroll.device(t));
  // The enrolled devices' product: the cohort must be one of it.
  const productPrn = (await t.api('GET', `/devices/${devices[0].prn}`)).body.device.product_prn;
  const cohort = await t.api('POST', '/cohorts', { name: `rollouts-${Date.now()}`, product_prn: productPrn });
  expect(cohort.status, JSON.stringify(cohort.body)).toBe(201);
  cohortPrn = cohort.body.cohort.prn;
  for (const device of devices) expect((await t.api('PATCH', `/devices/${device.prn}`, { cohort_prn: cohortPrn })).status).toBe(200);
  const base = { cohort_prn: cohortPrn, required: false, schedule_date: null };
  r1 = (await t.api('POST', '/releases', { ...base, bundle_prn: b1.prn, name: 'r1' })).body.release;
  const created = await t.api('POST', '/releases', { ...base, bundle_prn: b2.prn, name: 'r2', halt_failure_ratio: 0.5, halt_min_reports: 3 });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  r2 = created.body.release;
});

const report = (device: EnrolledDevice, status: string, release = r2, bundle = b2) =>
  device.api('POST', '/update/reports', { status, release_prn: release.prn, bundle_prn: bundle.prn, ...(status === 'failed' || status === 'rolled_back' || status === 'deferred' ? { reason: 'boom' } : {}) });

describe('health gate fields', () => {
  it('are answered on create, default to off with a minimum of 5, and change by PATCH', async () => {
    expect(r2).toMatchObject({ halt_failure_ratio: 0.5, halt_min_reports: 3, halted_at: null, disabled: false });
    expect(r1).toMatchObject({ halt_failure_ratio: null, halt_min_reports: 5, halted_at: null });
    const patched = await t.api('PATCH', `/releases/${r1.prn}`, { halt_failure_ratio: 1, halt_min_reports: 1 });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.release).toMatchObject({ halt_failure_ratio: 1, halt_min_reports: 1 });
    const off = await t.api('PATCH', `/releases/${r1.prn}`, { halt_failure_ratio: null });
    expect(off.body.release).toMatchObject({ halt_failure_ratio: null, halt_min_reports: 1 });
  });

  it('refuses a ratio outside (0, 1] and a minimum that is not an integer >= 1, naming the field', async () => {
    for (const [field, value] of [
      ['halt_failure_ratio', 0],
      ['halt_failure_ratio', 1.5],
      ['halt_failure_ratio', -0.2],
      ['halt_min_reports', 0],
      ['halt_min_reports', 2.5],
    ] as const) {
      const res = await t.api('PATCH', `/releases/${r1.prn}`, { [field]: value });
      expect(res.status, `${field}=${value}`).toBe(422);
      expect(res.body.errors[0].context.field).toBe(field);
    }
    const res = await t.api('POST', '/releases', { cohort_prn: cohortPrn, bundle_prn: b1.prn, name: 'x', required: false, schedule_date: null, halt_failure_ratio: 'high' });
    expectFieldError(res, 'halt_failure_ratio', 'invalid_type');
  });
});

describe('rollout progress and the halt', () => {
  it('counts the cohort and its eligible devices before any report', async () => {
    const res = await t.api('GET', `/releases/${r2.prn}/rollout`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rollout).toMatchObject({
      release_prn: r2.prn,
      phase_value: 1,
      cohort_devices: 6,
      eligible: 6,
      claimed: null,
      reported: { downloading: 0, installing: 0, rebooting: 0, installed: 0, failed: 0, rolled_back: 0 },
      on_release: 0,
      halted_at: null,
      halt_reason: null,
    });
    expect(Object.values(res.body.rollout.not_eligible).every((n) => n === 0)).toBe(true);
  });

  it('counts each device by its latest report, and halts once on the report that crosses the line', async () => {
    expect((await report(devices[0], 'downloading')).status).toBe(201);
    expect((await report(devices[1], 'downloading')).status).toBe(201);
    expect((await report(devices[1], 'installed')).status).toBe(201);
    expect((await report(devices[2], 'failed')).status).toBe(201);
    let rollout = (await t.api('GET', `/releases/${r2.prn}/rollout`)).body.rollout;
    expect(rollout.reported).toEqual({ downloading: 1, installing: 0, rebooting: 0, installed: 1, confirmed: 0, failed: 1, rolled_back: 0, deferred: 0 });
    expect(rollout.halted_at).toBeNull(); // 2 finished < halt_min_reports 3
    // A deferral after a failure is recorded, but the failure stays the device's latest outcome.
    expect((await report(devices[2], 'deferred')).status).toBe(201);
    rollout = (await t.api('GET', `/releases/${r2.prn}/rollout`)).body.rollout;
    expect(rollout.reported).toMatchObject({ failed: 1, deferred: 0 });

    // The third finished report: 2 of 3 failed >= 0.5.
    expect((await report(devices[3], 'rolled_back')).status).toBe(201);
    const release = (await t.api('GET', `/releases/${r2.prn}`)).body.release;
    expect(release.disabled).toBe(true);
    expect(release.halted_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    rollout = (await t.api('GET', `/releases/${r2.prn}/rollout`)).body.rollout;
    expect(rollout).toMatchObject({ halted_at: release.halted_at, halt_reason: 'failure_ratio', disabled: true });
    // Disabled: the update check offers it to nobody now.
    expect(rollout.eligible).toBe(0);
    expect(rollout.not_eligible.release_disabled).toBe(6);

    // Later failures do not halt it again.
    expect((await report(devices[4], 'failed')).status).toBe(201);
    const halted = await t.api('GET', `/events?type=release&subtype=halted`);
    expect(halted.status).toBe(200);
    expect(halted.body.events).toHaveLength(1);
    expect(halted.body.events[0]).toMatchObject({ resource_prn: r2.prn });
    expect(halted.body.events[0].data.data).toMatchObject({ release: r2.prn, installed: 1, failed: 1, rolled_back: 1, halt_failure_ratio: 0.5, halt_min_reports: 3 });
    expect(rollout.reported).toEqual({ downloading: 1, installing: 0, rebooting: 0, installed: 1, confirmed: 0, failed: 1, rolled_back: 1, deferred: 0 });
  });

  it('a device moving a release after a report counts once, under its latest status; deleting it drops its count', async () => {
    const rollout = async () => (await t.api('GET', `/releases/${r2.prn}/rollout`)).body.rollout;
    expect((await report(devices[0], 'installing')).status).toBe(201);
    expect((await rollout()).reported).toMatchObject({ downloading: 0, installing: 1 });
    // Devices whose reported release is r2, from the update check's stored state.
    const checked = await t.api('POST', `/devices/${devices[1].prn}/update`, { release_prn: r2.prn, bundle_prn: b2.prn, write: true });
    expect(checked.status).toBe(200);
    expect((await rollout()).on_release).toBe(1);
    expect((await t.api('DELETE', `/devices/${devices[0].prn}`)).status).toBe(204);
    const after = await rollout();
    expect(after.reported.installing).toBe(0);
    expect(after.cohort_devices).toBe(5);
    devices.shift();
  });

  it('PATCH disabled: false resumes the release and clears halted_at; a PATCH without disabled leaves a halt alone', async () => {
    const rename = await t.api('PATCH', `/releases/${r2.prn}`, { description: 'bad build' });
    expect(rename.body.release).toMatchObject({ disabled: true, halted_at: expect.any(String) });
    const resumed = await t.api('PATCH', `/releases/${r2.prn}`, { disabled: false });
    expect(resumed.status).toBe(200);
    expect(resumed.body.release).toMatchObject({ disabled: false, halted_at: null });
    // Still past the line: the next finished report halts it again, once more.
    expect((await report(devices[4], 'failed')).status).toBe(201);
    expect((await t.api('GET', `/releases/${r2.prn}`)).body.release.disabled).toBe(true);
    expect((await t.api('GET', `/events?type=release&subtype=halted`)).body.events).toHaveLength(2);
  });

  it('answers 404 for an unknown prn, another type, and another organization, and 401 without a key', async () => {
    const other = await t.createOrganization();
    expect((await other.api('GET', `/releases/${r2.prn}/rollout`)).status).toBe(404);
    expect((await t.api('GET', `/releases/${r2.prn.replace(/[0-9a-f]{12}$/, '000000000000')}/rollout`)).status).toBe(404);
    expect((await t.api('GET', `/releases/${b1.prn}/rollout`)).status).toBe(404);
    expect((await t.api('GET', `/releases/${r2.prn}/rollout`, undefined, { key: null })).status).toBe(401);
  });
});

describe('POST /releases/dry_run', () => {
  const body = (fields: Record<string, unknown> = {}) => ({ cohort_prn: cohortPrn, bundle_prn: b1.prn, name: 'r3', required: false, schedule_date: null, ...fields });

  it('says where the release would go and what it would reach, and writes nothing', async () => {
    const releasesBefore = await count('select count(*) as n from releases');
    const stampBefore = await count('select coalesce(sum(version), 0) as n from release_chain_versions');
    const eventsBefore = await count('select count(*) as n from events');
    const res = await t.api('POST', '/releases/dry_run', body({ phase_value: 2 }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const resumed = (await t.api('GET', `/releases/${r2.prn}`)).body.release;
    expect(res.body.dry_run).toMatchObject({
      valid: true,
      errors: [],
      position: { previous_release_prn: r2.prn, next_release_prn: null },
      cohort_devices: 5,
    });
    expect(resumed.disabled).toBe(true);
    // Five devices: on no reported release, on r2 (reported by the check above), failed ones...
    const dry = res.body.dry_run;
    expect(dry.eligible + Object.values<number>(dry.not_eligible).reduce((a, b) => a + b, 0)).toBe(5);
    expect(dry.would_claim).toBe(Math.min(2, dry.eligible));
    expect(await count('select count(*) as n from releases')).toBe(releasesBefore);
    expect(await count('select coalesce(sum(version), 0) as n from release_chain_versions')).toBe(stampBefore);
    expect(await count('select count(*) as n from events')).toBe(eventsBefore);
  });

  it('counts devices not eligible by reason, through the update check’s resolution', async () => {
    // Quarantine one device: it is not eligible for that reason alone.
    expect((await t.api('PATCH', `/devices/${devices[0].prn}`, { quarantined: true })).status).toBe(200);
    const requirement = (await t.api('POST', '/releases/dry_run', body({ version_requirement: '>= 9.0.0' }))).body.dry_run;
    expect(requirement.not_eligible.quarantined).toBe(1);
    expect(requirement.not_eligible.version_requirement).toBe(4);
    expect(requirement.eligible).toBe(0);
    const tagged = (await t.api('POST', '/releases/dry_run', body({ phase_mode: 'tags', phase_tags: ['canary'], phase_value: null }))).body.dry_run;
    expect(tagged.not_eligible).toMatchObject({ quarantined: 1, phase_tags: 4 });
    const required = (await t.api('POST', '/releases/dry_run', body({ required: true }))).body.dry_run;
    expect(required.eligible).toBe(4);
    expect((await t.api('PATCH', `/devices/${devices[0].prn}`, { quarantined: false })).status).toBe(200);
  });

  it('resolves a device under a bundle override on its own, beside the devices grouped by equal inputs', async () => {
    const before = (await t.api('POST', '/releases/dry_run', body({ required: true }))).body.dry_run;
    const window = { starts_at: new Date(Date.now() - 60_000).toISOString(), ends_at: new Date(Date.now() + 600_000).toISOString() };
    const override = (await t.api('POST', '/bundle_overrides', { name: 'pin', bundle_prn: b1.prn, ...window })).body.bundle_override;
    expect((await t.api('POST', `/bundle_overrides/${override.prn}/devices`, { device_prn: devices[2].prn })).status).toBe(201);
    const after = (await t.api('POST', '/releases/dry_run', body({ required: true }))).body.dry_run;
    expect(after.not_eligible.bundle_override).toBe(before.not_eligible.bundle_override + 1);
    const total = (dry: any) => dry.eligible + Object.values<number>(dry.not_eligible).reduce((a, b) => a + b, 0);
    expect(total(after)).toBe(total(before));
    expect((await t.api('DELETE', `/bundle_overrides/${override.prn}`)).status).toBe(204);
    expect((await t.api('POST', '/releases/dry_run', body({ required: true }))).body.dry_run.not_eligible).toEqual(before.not_eligible);
  });

  it('answers valid: false with the errors POST /releases would answer', async () => {
    const tooLate = await t.api('POST', '/releases/dry_run', body({ version: 'not-a-version' }));
    expect(tooLate.status).toBe(200);
    expect(tooLate.body.dry_run).toMatchObject({ valid: false, cohort_devices: 0, eligible: 0, would_claim: 0, not_eligible: null });
    expect(tooLate.body.dry_run.errors[0]).toMatchObject({ code: 'validation', context: { field: 'version' } });
    const real = await t.api('POST', '/releases', body({ version: 'not-a-version' }));
    expect(real.status).toBe(422);
    expect(real.body.errors).toEqual(tooLate.body.dry_run.errors);
  });

  it('is 422 for a body of the wrong shape, 401 without a key, 403 for a read key, and another organization’s cohort is not found', async () => {
    expectFieldError(await t.api('POST', '/releases/dry_run', { cohort_prn: cohortPrn }), 'bundle_prn', 'required');
    expect((await t.api('POST', '/releases/dry_run', body(), { key: null })).status).toBe(401);
    expect((await t.api('POST', '/releases/dry_run', body(), { key: await t.keyWithRole('read') })).status).toBe(403);
    const other = await t.createOrganization();
    const foreign = await other.api('POST', '/releases/dry_run', body());
    expect(foreign.status).toBe(200);
    expect(foreign.body.dry_run.valid).toBe(false);
    expect(foreign.body.dry_run.errors[0].context).toMatchObject({ field: 'cohort_prn', reason: 'not_found' });
  });
});

describe('POST /releases/{prn}/revert', () => {
  it('disables the release and appends a required release carrying the previous bundle', async () => {
    const res = await t.api('POST', `/releases/${r2.prn}/revert`, { name: 'back to r1', version: '1.0.1' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.release).toMatchObject({
      name: 'back to r1',
      version: '1.0.1',
      bundle_prn: b1.prn,
      cohort_prn: cohortPrn,
      required: true,
      disabled: false,
      phase_value: 1,
      previous_release_prn: r2.prn,
      next_release_prn: null,
    });
    expect((await t.api('GET', `/releases/${r2.prn}`)).body.release.disabled).toBe(true);
    // A device that took r2 is offered r1's bundle again through the normal update check.
    const check = await t.api('POST', `/devices/${devices[1].prn}/update`, { release_prn: r2.prn });
    expect(check.body).toMatchObject({ status: 'update', source_prn: res.body.release.prn, bundle_prn: b1.prn });
  });

  it('is 409 nothing_to_revert_to for the first release, 422 without a name or with a bad version, 404 across organizations', async () => {
    const first = await t.api('POST', `/releases/${r1.prn}/revert`, { name: 'nope' });
    expect(first.status).toBe(409);
    expect(first.body.errors[0].code).toBe('nothing_to_revert_to');
    expectFieldError(await t.api('POST', `/releases/${r2.prn}/revert`, {}), 'name', 'required');
    const badVersion = await t.api('POST', `/releases/${r2.prn}/revert`, { name: 'x', version: 'v-one' });
    expect(badVersion.status).toBe(422);
    const releasesBefore = await count('select count(*) as n from releases');
    const other = await t.createOrganization();
    expect((await other.api('POST', `/releases/${r2.prn}/revert`, { name: 'x' })).status).toBe(404);
    expect((await t.api('POST', `/releases/${r2.prn}/revert`, { name: 'x' }, { key: await t.keyWithRole('read') })).status).toBe(403);
    expect(await count('select count(*) as n from releases')).toBe(releasesBefore);
  });
});

describe('the per-device explain links the fleet-wide why not', () => {
  it('names the rollout of the cohort’s latest release', async () => {
    const res = await t.api('GET', `/devices/${devices[1].prn}/update/explain`);
    expect(res.status).toBe(200);
    const latest = (await t.api('GET', `/releases?search=${encodeURIComponent(`cohort_prn:'${cohortPrn}'`)}`)).body.releases.find((r: any) => r.next_release_prn === null);
    expect(res.body.rollout_path).toBe(`/releases/${latest.prn}/rollout`);
    expect((await t.api('GET', res.body.rollout_path)).status).toBe(200);
  });
});

describe('the fleet-wide why not of rollout progress', () => {
  it('is the last evaluation with its time, taken again in the background once older than the TTL, and at once after a chain edit', async () => {
    const base = { cohort_prn: cohortPrn, required: false, schedule_date: null };
    const latest = (await t.api('POST', '/releases', { ...base, bundle_prn: b2.prn, name: 'fresh' })).body.release;
    const read = async () => (await t.api('GET', `/releases/${latest.prn}/rollout`)).body.rollout;
    const first = await read();
    const at = Date.parse(first.eligibility_evaluated_at);
    // Not a chain edit: the kept evaluation is served as it is, with the time it was taken.
    expect((await t.api('PATCH', `/devices/${devices[3].prn}`, { quarantined: true })).status).toBe(200);
    const kept = await read();
    expect(kept.eligibility_evaluated_at).toBe(first.eligibility_evaluated_at);
    expect(kept.not_eligible).toEqual(first.not_eligible);
    // Past the TTL: the request still gets the kept one, and starts the next one meanwhile.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at + ELIGIBILITY_TTL_MS - Date.now()) + 50));
    expect((await read()).eligibility_evaluated_at).toBe(first.eligibility_evaluated_at);
    await expect.poll(async () => (await read()).not_eligible.quarantined, { timeout: 10_000 }).toBe(first.not_eligible.quarantined + 1);
    expect(Date.parse((await read()).eligibility_evaluated_at)).toBeGreaterThan(at);
    // A chain edit: the next answer is evaluated on the new chain before it is sent.
    const refreshed = await read();
    expect((await t.api('PATCH', `/releases/${latest.prn}`, { disabled: true })).status).toBe(200);
    const edited = await read();
    expect(Date.parse(edited.eligibility_evaluated_at)).toBeGreaterThan(Date.parse(refreshed.eligibility_evaluated_at));
    expect(edited.eligible).toBe(0);
    expect((await t.api('PATCH', `/devices/${devices[3].prn}`, { quarantined: false })).status).toBe(200);
    expect((await t.api('DELETE', `/releases/${latest.prn}`)).status).toBe(204);
  });
});
