/**
 * The devices search's rollout fields: `online` (communicated within the online window, as the
 * counts say), `reported_release_prn`, and `update_status` (the latest update report's status);
 * a bad value is a 400 naming the clause.
 */
import { beforeAll, expect, it } from 'vitest';
import { deviceEnrollment, type EnrolledDevice } from '../support/device-json-client';
import { useFleet } from '../support/fleet';
import { useTestServer } from '../support/server';

const t = useTestServer();
const fleet = useFleet(t);
const enroll = deviceEnrollment(t);

let failed: EnrolledDevice;
let installed: EnrolledDevice;
let quiet: EnrolledDevice;
let releasePrn: string;
beforeAll(async () => {
  [failed, installed, quiet] = [await enroll.device(t), await enroll.device(t), await enroll.device(t)];
  const cohort = await fleet.cohort();
  const bundlePrn = (await fleet.bundle()).prn;
  releasePrn = (await t.api('POST', '/releases', { bundle_prn: bundlePrn, cohort_prn: cohort.prn, name: 'r1', required: false, schedule_date: null })).body.release.prn;
  for (const [device, status, reason] of [[failed, 'downloading'], [failed, 'failed', 'boom'], [installed, 'installed']] as const) {
    const res = await device.api('POST', '/update/reports', { status, release_prn: releasePrn, bundle_prn: bundlePrn, ...(reason ? { reason } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  // The quiet device never called the device API; the others did (they reported), so they are online.
  await t.server.platform.db.execute(`update devices set reported_release_prn = '${releasePrn}' where id = '${installed.prn.split(':').pop()}'`);
});

const found = async (search: string) => {
  const res = await t.api('GET', `/devices?limit=100&search=${encodeURIComponent(search)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.devices as { prn: string }[]).map((d) => d.prn).sort();
};
const ours = (prns: string[]) => prns.filter((p) => [failed.prn, installed.prn, quiet.prn].includes(p));

it('filters by the latest update report status, and by none', async () => {
  expect(await found("update_status:'failed'")).toEqual([failed.prn]);
  expect(await found("update_status:'installed'")).toEqual([installed.prn]);
  expect(ours(await found('update_status:null'))).toEqual([quiet.prn]);
});

it('filters by online state and by reported release', async () => {
  expect(ours(await found('online:true')).sort()).toEqual([failed.prn, installed.prn].sort());
  expect(ours(await found('online:false'))).toEqual([quiet.prn]);
  expect(await found(`reported_release_prn:'${releasePrn}'`)).toEqual([installed.prn]);
});

it('refuses a status that does not exist, naming the clause', async () => {
  const res = await t.api('GET', `/devices?search=${encodeURIComponent("update_status:'exploded'")}`);
  expect(res.status).toBe(400);
  expect(res.body.errors[0]).toMatchObject({ code: 'parameter', context: { parameter: 'search', reason: 'invalid_value', clause: "update_status:'exploded'" } });
});
