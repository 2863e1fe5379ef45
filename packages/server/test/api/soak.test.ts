/**
 * Success after a soak (rollouts/soak-rule.ts) with real devices over mutual TLS: the release
 * field and its 422; `installed` starts the soak, `healthy` reports confirm it once it is over,
 * a failure within it is a soak failure; rollout progress, the reports list and the events
 * (`device.soak_passed`, `device.soak_failed`) show it; the confirming report applies the health
 * gate. And the report statement's SQL (update-reports/report-writes.ts) against the pure rule on
 * every (row, report, soak) case.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { afterReport, type SoakRow } from '../../src/rollouts/soak-rule';
import { STORED_REPORT_STATUSES, UPDATE_REPORT_STATUSES, type StoredReportStatus } from '../../src/update-reports/schema';
import { deviceEnrollment, type EnrolledDevice } from '../support/device-json-client';
import { createFleet, type FleetBundle } from '../support/fleet';
import { expectFieldError } from '../support/resource-checks';
import { useTestServer } from '../support/server';

const t = useTestServer();
const enroll = deviceEnrollment(t);
const SOAK = 600;

let devices: EnrolledDevice[];
let bundle: FleetBundle;
let cohortPrn: string;
let soaked: any;

const idOf = (prn: string) => prn.split(':').pop()!;
const rows = async <T>(query: ReturnType<typeof sql>) => ((await t.server.platform.db.execute(query)) as unknown as { rows: T[] }).rows;
const report = (device: EnrolledDevice, releasePrn: string, status: string, reason?: string) =>
  device.api('POST', '/update/reports', { status, release_prn: releasePrn, bundle_prn: bundle.prn, ...(reason ? { reason } : {}) });
/** Moves a device's soak start back, as if it had installed `seconds` ago. */
const installedAgo = (device: EnrolledDevice, releasePrn: string, seconds: number) =>
  t.server.platform.db.execute(sql`update device_update_reports set soak_started_at = now() - make_interval(secs => ${seconds}) where device_id = ${idOf(device.prn)} and release_id = ${idOf(releasePrn)}`);
/** The data of the recorded events of one kind (the envelope's `data.data`). */
const events = async (type: string, subtype: string) => ((await t.api('GET', `/events?type=${type}&subtype=${subtype}&limit=100`)).body.events as any[]).map((e) => e.data.data);

beforeAll(async () => {
  const fleet = await createFleet(t.api);
  bundle = await fleet.bundle();
  devices = [await enroll.device(t), await enroll.device(t), await enroll.device(t)];
  const productPrn = (await t.api('GET', `/devices/${devices[0].prn}`)).body.device.product_prn;
  cohortPrn = (await t.api('POST', '/cohorts', { name: `soak-${Date.now()}`, product_prn: productPrn })).body.cohort.prn;
  const created = await t.api('POST', '/releases', { cohort_prn: cohortPrn, required: false, schedule_date: null, bundle_prn: bundle.prn, name: 'soaked', soak_seconds: SOAK, halt_failure_ratio: 0.5, halt_min_reports: 2 });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  soaked = created.body.release;
});

describe('success after a soak', () => {
  it('is a release field, null by default, and refuses values out of range naming the field', async () => {
    expect(soaked.soak_seconds).toBe(SOAK);
    for (const bad of [0, -1, 1.5, 30 * 86_400 + 1]) expectFieldError(await t.api('PATCH', `/releases/${soaked.prn}`, { soak_seconds: bad }), 'soak_seconds', expect.any(String) as unknown as string);
    const dry = await t.api('POST', '/releases/dry_run', { cohort_prn: cohortPrn, required: false, schedule_date: null, bundle_prn: bundle.prn, name: 'plain' });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect((await t.api('GET', `/releases/${soaked.prn}`)).body.release.soak_seconds).toBe(SOAK);
  });

  it('confirms a device healthy for the soak, counts a failure within it against the release, and halts on the confirming report', async () => {
    const [passing, failing] = devices;
    expect((await report(passing, soaked.prn, 'installed')).body.data.soak).toBeNull();
    expect((await report(failing, soaked.prn, 'installed')).status).toBe(201);
    const healthy = await report(passing, soaked.prn, 'healthy');
    expect(healthy.status, JSON.stringify(healthy.body)).toBe(201);
    expect(healthy.body.data).toMatchObject({ status: 'healthy', soak: 'soaking' });
    let rollout = (await t.api('GET', `/releases/${soaked.prn}/rollout`)).body.rollout;
    expect(rollout).toMatchObject({ soak_seconds: SOAK, soaking: 2, succeeded: 0, reported: { installed: 2, confirmed: 0 } });
    const listed = (await t.api('GET', `/releases/${soaked.prn}/reports?status=installed`)).body.reports;
    expect(listed).toHaveLength(2);
    expect(Date.parse(listed[0].soak_ends_at) - Date.now()).toBeGreaterThan((SOAK - 60) * 1000);

    // A failure within the soak: one finished device of the two the gate needs.
    const failed = await report(failing, soaked.prn, 'failed', 'health check failed: app not answering');
    expect(failed.body.data.soak).toBe('failed');
    expect((await t.api('GET', `/releases/${soaked.prn}`)).body.release.halted_at).toBeNull();
    expect(await events('device', 'soak_failed')).toEqual([expect.objectContaining({ release: soaked.prn, status: 'failed', reason: 'health check failed: app not answering' })]);

    // The soak passes: the device is confirmed, the gate counts it (2 finished, 1 failed: 0.5) and halts.
    await installedAgo(passing, soaked.prn, SOAK);
    const passed = await report(passing, soaked.prn, 'healthy');
    expect(passed.body.data.soak).toBe('passed');
    rollout = (await t.api('GET', `/releases/${soaked.prn}/rollout`)).body.rollout;
    expect(rollout).toMatchObject({ soaking: 0, succeeded: 1, reported: { installed: 0, confirmed: 1, failed: 1 } });
    const release = (await t.api('GET', `/releases/${soaked.prn}`)).body.release;
    expect(release.halted_at).not.toBeNull();
    expect(await events('device', 'soak_passed')).toEqual([expect.objectContaining({ release: soaked.prn, bundle: bundle.prn })]);
    expect((await events('release', 'halted')).find((data) => data.release === soaked.prn)).toMatchObject({ installed: 1, soaking: 0, failed: 1 });
    // Later healthy reports change nothing.
    expect((await report(passing, soaked.prn, 'healthy')).body.data.soak).toBeNull();
  });
});

describe('the report statement and the soak rule', () => {
  it('agree on every row, report and soak', async () => {
    const device = devices[2];
    const releases: Record<string, { prn: string; soak: number | null }> = {};
    for (const soak of [null, 60]) {
      const created = await t.api('POST', '/releases/dry_run', { cohort_prn: cohortPrn, required: false, schedule_date: null, bundle_prn: bundle.prn, name: 'x' });
      expect(created.status).toBe(200);
      const release = (await t.api('POST', '/releases', { cohort_prn: cohortPrn, required: false, schedule_date: null, bundle_prn: bundle.prn, name: `rule-${soak}`, soak_seconds: soak })).body.release;
      releases[String(soak)] = { prn: release.prn, soak };
    }
    const deviceId = idOf(device.prn);
    const previous: (StoredReportStatus | null)[] = [null, ...STORED_REPORT_STATUSES];
    let cases = 0;
    for (const { prn, soak } of Object.values(releases)) {
      const releaseId = idOf(prn);
      for (const before of previous) {
        for (const elapsed of before === 'installed' ? [10, 120] : [10]) {
          for (const status of UPDATE_REPORT_STATUSES) {
            await t.server.platform.db.execute(sql`delete from device_update_reports where device_id = ${deviceId} and release_id = ${releaseId}`);
            if (before !== null) {
              await t.server.platform.db.execute(sql`
                insert into device_update_reports (id, organization_id, device_id, release_id, bundle_id, status, event_id, soak_started_at)
                values (gen_random_uuid(), ${t.organizationId}, ${deviceId}, ${releaseId}, ${idOf(bundle.prn)}, ${before}, gen_random_uuid(),
                  ${before === 'installed' || before === 'confirmed' ? sql`now() - make_interval(secs => ${elapsed})` : null})`);
            }
            const [stored] = await rows<{ at: string | null; now: string }>(sql`select (extract(epoch from soak_started_at) * 1000)::float8 as at, (extract(epoch from now()) * 1000)::float8 as now from device_update_reports where device_id = ${deviceId} and release_id = ${releaseId}`);
            const row: SoakRow | null = before === null ? null : { status: before, soakStartedAt: stored.at === null ? null : Number(stored.at) };
            const sentAt = Date.now();
            const answer = await report(device, prn, status, ['failed', 'rolled_back', 'deferred'].includes(status) ? 'why' : undefined);
            expect(answer.status, JSON.stringify(answer.body)).toBe(201);
            const expected = afterReport(row, status, soak, sentAt);
            const [after] = await rows<{ status: StoredReportStatus; at: number | null }>(sql`select status, (extract(epoch from soak_started_at) * 1000)::float8 as at from device_update_reports where device_id = ${deviceId} and release_id = ${releaseId}`);
            const what = `${before} (${elapsed} s) + ${status}, soak ${soak}`;
            expect(answer.body.data.soak, what).toBe(expected.outcome);
            expect(after?.status ?? null, what).toBe(expected.row?.status ?? null);
            if (expected.row?.soakStartedAt === null) expect(after.at, what).toBeNull();
            else if (expected.row && expected.row.soakStartedAt === row?.soakStartedAt) expect(Number(after.at), what).toBeCloseTo(expected.row.soakStartedAt!, -1);
            else if (expected.row) expect(Number(after.at), what).toBeGreaterThan(sentAt - 5000);
            cases++;
          }
        }
      }
    }
    expect(cases).toBe(2 * (previous.length + 1) * UPDATE_REPORT_STATUSES.length);
  });
});
