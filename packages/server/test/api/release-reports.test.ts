/**
 * `GET /releases/{prn}/reports`: the devices behind a release's rollout counts, each with its
 * latest report and reason, filtered by status and paged; a read key may list them, a bad status
 * is a 400 naming `status`, another organization's release is a 404.
 */
import { beforeAll, expect, it } from 'vitest';
import { deviceEnrollment, type EnrolledDevice } from '../support/device-json-client';
import { useFleet } from '../support/fleet';
import { useTestServer } from '../support/server';

const t = useTestServer();
const fleet = useFleet(t);
const enroll = deviceEnrollment(t);

let devices: EnrolledDevice[];
let releasePrn: string;
let bundlePrn: string;
beforeAll(async () => {
  devices = [await enroll.device(t), await enroll.device(t), await enroll.device(t)];
  const cohort = await fleet.cohort();
  bundlePrn = (await fleet.bundle()).prn;
  const res = await t.api('POST', '/releases', { bundle_prn: bundlePrn, cohort_prn: cohort.prn, name: 'r1', required: false, schedule_date: null });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  releasePrn = res.body.release.prn;
  const report = async (device: EnrolledDevice, status: string, reason?: string) => {
    const res = await device.api('POST', '/update/reports', { status, release_prn: releasePrn, bundle_prn: bundlePrn, ...(reason ? { reason } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  await report(devices[0], 'downloading');
  await report(devices[0], 'failed', 'signature mismatch');
  await report(devices[1], 'installed');
  await report(devices[2], 'rolled_back', 'health check timed out');
});

const identifierOf = async (device: EnrolledDevice) => (await t.api('GET', `/devices/${device.prn}`)).body.device.identifier as string;

it("lists each device's latest report, newest first, with its identifier and reason", async () => {
  const res = await t.api('GET', `/releases/${releasePrn}/reports?limit=100`, undefined, { key: await t.keyWithRole('read') });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.reports.map((r: { device_prn: string; status: string }) => [r.device_prn, r.status])).toEqual([
    [devices[2].prn, 'rolled_back'],
    [devices[1].prn, 'installed'],
    [devices[0].prn, 'failed'],
  ]);
  expect(res.body.reports[2]).toMatchObject({ device_identifier: await identifierOf(devices[0]), bundle_prn: bundlePrn, reason: 'signature mismatch' });
  expect(res.body.next_page).toBeNull();
});

it('keeps only the statuses asked for, and pages', async () => {
  const first = await t.api('GET', `/releases/${releasePrn}/reports?status=failed,rolled_back&limit=1`);
  expect(first.body.reports.map((r: { reason: string }) => r.reason)).toEqual(['health check timed out']);
  const second = await t.api('GET', `/releases/${releasePrn}/reports?status=failed,rolled_back&limit=1&page=${encodeURIComponent(first.body.next_page)}`);
  expect(second.body.reports.map((r: { reason: string }) => r.reason)).toEqual(['signature mismatch']);
  expect(second.body.next_page).toBeNull();
});

it('refuses an unknown status naming the parameter, and another organization\'s release', async () => {
  const bad = await t.api('GET', `/releases/${releasePrn}/reports?status=failed,exploded`);
  expect(bad.status).toBe(400);
  expect(bad.body.errors[0]).toMatchObject({ code: 'parameter', context: { parameter: 'status', reason: 'invalid' } });
  const other = await t.createOrganization();
  expect((await other.api('GET', `/releases/${releasePrn}/reports`)).status).toBe(404);
});
