import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFleet } from '../support/fleet';
import { startTestServer, type TestServer } from '../support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

it('smoke', async () => {
  const fleet = await createFleet(t.server.platform.db, t.organizationId);
  const cohort = await fleet.cohort();
  const bundle = await fleet.bundle();
  const a = await t.api('POST', '/releases', { bundle_prn: bundle.prn, cohort_prn: cohort.prn, name: 'a', required: false, schedule_date: null });
  console.log(JSON.stringify(a.body));
  const b = await t.api('POST', '/releases', { bundle_prn: bundle.prn, cohort_prn: cohort.prn, name: 'b', required: false, schedule_date: null, 'version-requirement': '~> 1.2' });
  console.log(JSON.stringify(b.body));
  const c = await t.api('POST', '/releases', { bundle_prn: bundle.prn, cohort_prn: cohort.prn, name: 'c', required: false, schedule_date: null, next_release_prn: b.body.release.prn });
  console.log(JSON.stringify(c.body));
  const l = await t.api('GET', '/releases');
  console.log(JSON.stringify(l.body.releases.map((r: any) => [r.name, r.previous_release_prn?.slice(-4), r.next_release_prn?.slice(-4), r.prn.slice(-4)])));
  expect(a.status).toBe(201);
});
