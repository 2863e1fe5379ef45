/**
 * `POST /update/reports` over real mutual TLS: a device reports on an install, the report is
 * kept as the device's latest for the release (one row per device and release) and recorded as a
 * `device.update_reported` event; bad bodies and other organizations' prns are refused. On a
 * kept-alive connection the report's statement proves the admission; the statement of a group of
 * reports answers each on its own (src/update-reports/report-writes.ts).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeReport, type ReportWrite } from '../../src/update-reports/report-writes';
import { deviceAgent, deviceRequest } from '../support/device-client';
import { expectPlannedOnce } from '../support/statement-plans';
import { deviceEnrollment, type EnrolledDevice } from '../support/device-json-client';
import { deviceEvents } from '../support/device-fleet';
import { createFleet, useFleet, type FleetBundle } from '../support/fleet';
import { expectFieldError } from '../support/resource-checks';
import { updateReportedData } from '../support/event-data';
import { useTestServer } from '../support/server';

const t = useTestServer();
const fleet = useFleet(t);
const enroll = deviceEnrollment(t);

let device: EnrolledDevice;
let bundle: FleetBundle;
let releasePrn: string;
beforeAll(async () => {
  device = await enroll.device(t);
  const cohort = await fleet.cohort();
  bundle = await fleet.bundle();
  const res = await t.api('POST', '/releases', { bundle_prn: bundle.prn, cohort_prn: cohort.prn, name: 'r1', required: false, schedule_date: null });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  releasePrn = res.body.release.prn;
});

/** The stored latest reports of a device, straight from the table the rollout counts read. */
async function latestReports(devicePrn: string) {
  const id = devicePrn.split(':').pop();
  const result = await t.server.platform.db.execute(
    `select release_id, bundle_id, status, progress, reason from device_update_reports where device_id = '${id}' order by inserted_at`,
  );
  return (result as unknown as { rows: Record<string, unknown>[] }).rows;
}

describe('POST /update/reports', () => {
  it('records each report as an event and keeps the latest per device and release', async () => {
    const downloading = await device.api('POST', '/update/reports', { status: 'downloading', release_prn: releasePrn, bundle_prn: bundle.prn, progress: 0.25 });
    expect(downloading.status, JSON.stringify(downloading.body)).toBe(201);
    expect(downloading.body.data).toMatchObject({
      device_prn: device.prn,
      status: 'downloading',
      release_prn: releasePrn,
      bundle_prn: bundle.prn,
      progress: 0.25,
      reason: null,
    });
    expect(downloading.body.data.prn).toMatch(/^prn:1:[0-9a-f-]{36}:event:[0-9a-f-]{36}$/);
    expect(downloading.body.data.inserted_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    const installed = await device.api('POST', '/update/reports', { status: 'installed', release_prn: releasePrn, bundle_prn: bundle.prn });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    expect(installed.body.data).toMatchObject({ status: 'installed', progress: null, reason: null });

    const rows = await latestReports(device.prn);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'installed', progress: null, reason: null, release_id: releasePrn.split(':').pop() });

    const events = await deviceEvents(t.api, 'update_reported', device.prn);
    expect(events.map((e: any) => e.data.data.status)).toEqual(['installed', 'downloading']);
    expect(events[0].prn).toBe(installed.body.data.prn);
    expect(events[0].actor_prn).toBe(device.prn);
    expect(events[1].data.data).toMatchObject({
      device: { prn: device.prn, identifier: device.identifier },
      release: releasePrn,
      bundle: bundle.prn,
      status: 'downloading',
      progress: 0.25,
      reason: null,
    });
  });

  it('accepts a bundle outside any release, kept apart from release rows', async () => {
    const other = await enroll.device(t);
    const failed = await other.api('POST', '/update/reports', { status: 'failed', release_prn: null, bundle_prn: bundle.prn, reason: 'sha256 mismatch' });
    expect(failed.status, JSON.stringify(failed.body)).toBe(201);
    expect(failed.body.data).toMatchObject({ release_prn: null, reason: 'sha256 mismatch', status: 'failed' });
    const again = await other.api('POST', '/update/reports', { status: 'rolled_back', release_prn: null, bundle_prn: bundle.prn, reason: 'health check failed' });
    expect(again.status).toBe(201);
    const withRelease = await other.api('POST', '/update/reports', { status: 'installing', release_prn: releasePrn, bundle_prn: bundle.prn });
    expect(withRelease.status).toBe(201);
    const rows = await latestReports(other.prn);
    expect(rows.map((r) => [r.release_id === null, r.status])).toEqual([
      [true, 'rolled_back'],
      [false, 'installing'],
    ]);
  });

  it('refuses failed and rolled_back without a reason, and malformed fields', async () => {
    const base = { release_prn: releasePrn, bundle_prn: bundle.prn };
    expectFieldError(await device.api('POST', '/update/reports', { ...base, status: 'failed' }), 'reason', 'required');
    expectFieldError(await device.api('POST', '/update/reports', { ...base, status: 'rolled_back', reason: null }), 'reason', 'required');
    for (const body of [
      { ...base, status: 'exploded' },
      { ...base, status: 'downloading', progress: 1.5 },
      { ...base, status: 'downloading', progress: -0.1 },
      { ...base, status: 'failed', reason: '' },
      { ...base, status: 'failed', reason: 'x'.repeat(257) },
      { status: 'installed', release_prn: releasePrn },
      { ...base, status: 'installed', bundle_prn: 'not-a-prn' },
    ]) {
      const res = await device.api('POST', '/update/reports', body);
      expect([400, 422], JSON.stringify({ body, answer: res.body })).toContain(res.status);
      expect(res.body.errors[0].code).toBeTypeOf('string');
    }
    const raw = await device.api('POST', '/update/reports', undefined, { raw: '{"status":', headers: { 'content-type': 'application/json' } });
    expect(raw.status).toBe(400);
    // Nothing of those reached the table or the events.
    expect((await latestReports(device.prn)).map((r) => r.status)).toEqual(['installed']);
  });

  it("refuses another organization's release or bundle with a 422 naming the field", async () => {
    const other = await t.createOrganization();
    const otherFleet = await createFleet(other.api);
    const otherCohort = await otherFleet.cohort();
    const otherBundle = await otherFleet.bundle();
    const otherRelease = await other.api('POST', '/releases', { bundle_prn: otherBundle.prn, cohort_prn: otherCohort.prn, name: 'theirs', required: false, schedule_date: null });
    expect(otherRelease.status).toBe(201);
    expectFieldError(
      await device.api('POST', '/update/reports', { status: 'installing', release_prn: otherRelease.body.release.prn, bundle_prn: bundle.prn }),
      'release_prn',
      'not_found',
    );
    expectFieldError(await device.api('POST', '/update/reports', { status: 'installing', release_prn: releasePrn, bundle_prn: otherBundle.prn }), 'bundle_prn', 'not_found');
    // A prn of the right organization but the wrong type is unknown too.
    expectFieldError(await device.api('POST', '/update/reports', { status: 'installing', release_prn: bundle.prn, bundle_prn: bundle.prn }), 'release_prn', 'not_found');
    expect((await deviceEvents(other.api, 'update_reported')).length).toBe(0);
  });

  it("moves none of another organization's rollout counters when its release prn is reported", async () => {
    const other = await t.createOrganization();
    const otherFleet = await createFleet(other.api);
    const theirRelease = (await other.api('POST', '/releases', { bundle_prn: (await otherFleet.bundle()).prn, cohort_prn: (await otherFleet.cohort()).prn, name: 'theirs', required: false, schedule_date: null })).body.release;
    const rollout = async () => {
      const res = await other.api('GET', `/releases/${theirRelease.prn}/rollout`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { on_release, reported, claimed, cohort_devices } = res.body.rollout;
      return { on_release, reported, claimed, cohort_devices };
    };
    const before = await rollout();
    const reporter = await enroll.device(t);
    const check = await reporter.api('GET', '/update', undefined, { headers: { 'canopy-release-prn': theirRelease.prn, 'canopy-release-version': '1.0.0' } });
    expect(check.status, JSON.stringify(check.body)).toBe(200);
    expectFieldError(await reporter.api('POST', '/update/reports', { status: 'installed', release_prn: theirRelease.prn, bundle_prn: bundle.prn }), 'release_prn', 'not_found');
    expect(await rollout()).toEqual(before);
    expect(before.on_release).toBe(0);
    // Unknown to the device's organization: the check stores no release for it.
    expect((await t.api('GET', `/devices/${reporter.prn}`)).body.device).toMatchObject({ reported_release_prn: null, reported_release_version: '1.0.0' });
  });

  it('needs a device certificate', async () => {
    const { deviceApi } = await import('../support/device-json-client');
    const anonymous = deviceApi(t, null);
    const res = await anonymous('POST', '/update/reports', { status: 'installed', release_prn: releasePrn, bundle_prn: bundle.prn });
    expect(res.status).toBe(401);
  });
});

const idOf = (prn: string) => prn.split(':').at(-1)!;

describe('POST /update/reports on a kept-alive connection', () => {
  it('answers on the device as it is now, and refuses an archived device with nothing written', async () => {
    const kept = await enroll.device(t);
    const agent = deviceAgent(t, { certPem: kept.certificate.certPem, keyPem: kept.certificate.keyPem });
    const report = (progress: number) => deviceRequest(t, '/update/reports', { agent, body: { status: 'downloading', release_prn: releasePrn, bundle_prn: bundle.prn, progress } });
    try {
      // The first request is admitted by the admission statement, the next ones by their report's statement.
      const answers = [];
      for (const progress of [0.1, 0.2, 0.3]) answers.push(await report(progress));
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
      // The device changes under the connection: its guard fails, it is admitted again and its report names it as it is now.
      expect((await t.api('PATCH', `/devices/${kept.prn}`, { description: 'moved to the roof' })).status).toBe(200);
      answers.push(await report(0.4));
      expect(answers[3].status, JSON.stringify(answers[3].body)).toBe(201);
      expect(new Set(answers.map((a) => a.socketPort)).size, 'one connection throughout').toBe(1);
      const events = await deviceEvents(t.api, 'update_reported', kept.prn);
      expect(events.map((e) => e.data.data.progress)).toEqual([0.4, 0.3, 0.2, 0.1]);
      expect(events.map((e) => e.data.data.device.description)).toEqual(['moved to the roof', null, null, null]);
      expect(events[0].prn).toBe(answers[3].body.data.prn);

      expect((await t.api('PATCH', `/devices/${kept.prn}`, { archived: true })).status).toBe(200);
      const refused = await report(0.5);
      expect(refused.status, JSON.stringify(refused.body)).toBe(401);
      expect(refused.body.errors[0]).toMatchObject({ code: 'unauthenticated', context: { reason: 'device_is_archived' } });
      expect(await deviceEvents(t.api, 'update_reported', kept.prn)).toHaveLength(4);
      expect((await latestReports(kept.prn)).map((r) => r.progress)).toEqual([0.4]);
    } finally {
      agent.destroy();
    }
  });
});

/** A report of the device `devicePrn` on the suite's release and bundle, as the route would make it. */
function reportWriteOf(devicePrn: string, overrides: Partial<ReportWrite>): ReportWrite {
  return {
    deviceId: idOf(devicePrn),
    organizationId: t.organizationId,
    devicePrn,
    releaseId: idOf(releasePrn),
    bundleId: idOf(bundle.prn),
    status: 'installing',
    progress: null,
    reason: null,
    data: updateReportedData(devicePrn, { status: 'installing' }),
    soakData: null,
    guard: null,
    ...overrides,
  };
}

describe('the report statement', () => {
  it('answers each report of a group on its own and writes only the ones it keeps', async () => {
    const devices = await Promise.all(Array.from({ length: 6 }, () => enroll.device(t)));
    const cohort = await fleet.cohort();
    const gated = await t.api('POST', '/releases', { bundle_prn: bundle.prn, cohort_prn: cohort.prn, name: 'gated', required: false, schedule_date: null, halt_failure_ratio: 0.5 });
    expect(gated.status, JSON.stringify(gated.body)).toBe(201);
    const db = t.server.platform.db;
    const write = (i: number, overrides: Partial<ReportWrite> = {}) => reportWriteOf(devices[i].prn, { data: updateReportedData(devices[i].prn, { status: 'installing', reason: `n${i}` }), ...overrides });
    const failingGuard = { deviceId: idOf(devices[3].prn), organizationId: t.organizationId, fingerprint: 'NOT-REGISTERED', version: '1', caId: null };
    // Submitted in one turn: they leave together, as one statement.
    const outcomes = await Promise.all([
      writeReport(db, write(0)),
      writeReport(db, write(1, { releaseId: randomUUID() })),
      writeReport(db, write(2, { bundleId: null })),
      writeReport(db, write(3, { guard: failingGuard })),
      writeReport(db, write(4, { releaseId: null, status: 'failed', reason: 'no space' })),
      writeReport(db, write(5, { releaseId: idOf(gated.body.release.prn), status: 'failed', reason: 'boom' })),
    ]);
    expect(outcomes.map((o) => o.kind)).toEqual(['written', 'release_not_found', 'bundle_not_found', 'not_admitted', 'written', 'may_halt']);
    const written = [0, 4];
    for (const [i, device] of devices.entries()) {
      const rows = await latestReports(device.prn);
      const events = await deviceEvents(t.api, 'update_reported', device.prn);
      expect(rows.length, `device ${i}'s latest reports`).toBe(written.includes(i) ? 1 : 0);
      expect(events.map((e) => e.data.data.reason), `device ${i}'s events`).toEqual(written.includes(i) ? [`n${i}`] : []);
    }
    // A kept report's prn names its event, stamped with the statement's time.
    const [event] = await deviceEvents(t.api, 'update_reported', devices[0].prn);
    expect(outcomes[0]).toMatchObject({ kind: 'written', eventId: idOf(event.prn) });
  });
});

describe.skipIf(!process.env.DATABASE_URL)('the report statement on PostgreSQL', () => {
  it('is planned once per database connection, whatever each group holds', async () => {
    const devices = await Promise.all(Array.from({ length: 4 }, () => enroll.device(t)));
    const db = t.server.platform.db;
    const write = (i: number, overrides: Partial<ReportWrite> = {}) => reportWriteOf(devices[i].prn, { status: 'downloading', progress: 0.5, data: updateReportedData(devices[i].prn, { status: 'downloading', progress: 0.5 }), ...overrides });
    // Groups of one to four, with and without a release, some refused: more executions than the five custom plans.
    for (let round = 0; round < 12; round++) {
      const size = 1 + (round % 4);
      const outcomes = await Promise.all(Array.from({ length: size }, (_, i) => writeReport(db, write(i, round % 3 === 0 ? { releaseId: null } : i === 1 ? { bundleId: null } : {}))));
      expect(outcomes.map((o) => o.kind)).toEqual(Array.from({ length: size }, (_, i) => (i === 1 && round % 3 !== 0 ? 'bundle_not_found' : 'written')));
    }
    await expectPlannedOnce(db, 'update_report_writes');
  });
});
