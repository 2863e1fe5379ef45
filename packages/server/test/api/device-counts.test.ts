/**
 * GET /devices/counts: the counts by state of the devices a search selects, the search language
 * of GET /devices, only ever over the caller's organization (a search naming another
 * organization's cohort counts nothing); a search that does not parse is a 400 naming `search`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceEnrollment } from '../support/device-json-client';
import { createFleet, type Fleet } from '../support/fleet';
import { startTestServer, type Api, type TestServer } from '../support/server';

let t: TestServer;
let fleet: Fleet;
let cohortPrn: string;

const counts = (api: Api, search?: string) => api('GET', `/devices/counts${search === undefined ? '' : `?search=${encodeURIComponent(search)}`}`);

beforeAll(async () => {
  t = await startTestServer();
  fleet = await createFleet(t.api);
  const cohort = await fleet.cohort('counted');
  cohortPrn = cohort.prn;
  await fleet.device({ cohortId: cohort.id, quarantined: true, tags: ['east'] });
  await fleet.device({ cohortId: cohort.id, tags: ['east'] });
  const archived = await fleet.device({ cohortId: cohort.id });
  expect((await t.api('PATCH', `/devices/${archived.prn}`, { archived: true })).status).toBe(200);
  await fleet.device();
  // One device that has connected (over mutual TLS): online, and connected at least once.
  const enrolled = await deviceEnrollment(t).device(t);
  expect((await enrolled.api('GET', '/device/me')).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

describe('GET /devices/counts', () => {
  it('counts every device of the organization by state', async () => {
    const res = await counts(t.api);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.device_counts).toEqual({ total: 5, quarantined: 1, archived: 1, online: 1, never_connected: 4, reported_release: 0 });
  });

  it('counts what the search selects, with the search language of GET /devices', async () => {
    expect((await counts(t.api, `cohort_prn:'${cohortPrn}'`)).body.device_counts).toEqual({ total: 3, quarantined: 1, archived: 1, online: 0, never_connected: 3, reported_release: 0 });
    expect((await counts(t.api, "tags:'east' and quarantined:false")).body.device_counts).toMatchObject({ total: 1, quarantined: 0 });
    const listed = (await t.api('GET', `/devices?limit=100&search=${encodeURIComponent("tags:'east'")}`)).body.devices;
    expect((await counts(t.api, "tags:'east'")).body.device_counts.total).toBe(listed.length);
  });

  it("counts nothing of another organization, also when the search names its cohort", async () => {
    const other = await t.createOrganization();
    expect((await counts(other.api)).body.device_counts).toEqual({ total: 0, quarantined: 0, archived: 0, online: 0, never_connected: 0, reported_release: 0 });
    expect((await counts(other.api, `cohort_prn:'${cohortPrn}'`)).body.device_counts.total).toBe(0);
  });

  it('answers 400 naming search for a search that does not parse, or a field it does not know', async () => {
    for (const bad of ["identifier:'unclosed", 'colour:red']) {
      const res = await counts(t.api, bad);
      expect(res.status, bad).toBe(400);
      expect(JSON.stringify(res.body.errors[0]), bad).toContain('search');
    }
  });
});
