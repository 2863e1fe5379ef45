/**
 * The device API's routes over real mutual TLS with the releases context behind them:
 * `GET /update` resolves a release chain from the position headers, `/device/me` expands the
 * manifest of what the device reports, and other contexts' device routes (tunnels) are served
 * behind the same authentication.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeLeafCertificate, makeRootCa, type TestCertificate } from '../support/certificates';
import { deviceRequest } from '../support/device-client';
import { deviceEvents, registerDeviceCertificate, registeredCa } from '../support/device-fleet';
import { useFleet } from '../support/fleet';
import { useTestServer } from '../support/server';

const t = useTestServer();
const fleet = useFleet(t);
let root: TestCertificate;
beforeAll(async () => {
  root = await makeRootCa();
  await registeredCa(t.api, root);
});

async function release(cohortPrn: string, bundlePrn: string, fields: Record<string, unknown> = {}) {
  const res = await t.api('POST', '/releases', { bundle_prn: bundlePrn, cohort_prn: cohortPrn, name: 'r', required: false, schedule_date: null, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.release;
}

async function certifiedDevice(cohortId: string | null) {
  const device = await fleet.device({ cohortId });
  const certificate = await makeLeafCertificate(root, `dev-${device.id.slice(0, 8)}`);
  await registerDeviceCertificate(t.api, device.prn, certificate);
  return { device, certificate };
}

describe('GET /update over mTLS', () => {
  it('offers the next release from the position headers, with expansions, then no_update', async () => {
    const cohort = await fleet.cohort();
    const [b1, b2] = [await fleet.bundle(), await fleet.bundle()];
    const r1 = await release(cohort.prn, b1.prn, { version: '1.0.0' });
    const r2 = await release(cohort.prn, b2.prn, { version: '1.1.0' });
    const { device, certificate } = await certifiedDevice(cohort.id);

    const offered = await deviceRequest(t, '/update?expand=source_type,release,bundle,manifest', {
      credentials: certificate,
      headers: { 'canopy-release-prn': r1.prn, 'canopy-release-version': '1.0.0' },
    });
    expect(offered.status, JSON.stringify(offered.body)).toBe(200);
    expect(offered.body).toMatchObject({ status: 'update', source_type: 'release', release: { prn: r2.prn }, bundle: { prn: b2.prn } });
    expect(offered.body.manifest).toHaveLength(1);
    expect(offered.body.manifest[0]).toHaveProperty('binary_prn');

    const plain = await deviceRequest(t, '/update', { credentials: certificate, headers: { 'canopy-release-prn': r2.prn } });
    expect(plain.body).toEqual({ status: 'no_update' });
    // The check recorded what the device reports, and its events name the device.
    const me = await deviceRequest(t, '/device/me?expand=manifest', { credentials: certificate });
    expect(me.body.data).toMatchObject({ prn: device.prn, reported_release_prn: r2.prn });
    // The device reads itself as the admin API shows it, plus what it expanded (the schema is exact).
    const { device: asAdmin } = (await t.api('GET', `/devices/${device.prn}`)).body;
    const withCohort = await deviceRequest(t, '/device/me?expand=manifest,cohort', { credentials: certificate });
    expect(withCohort.body.data).toEqual({
      ...asAdmin,
      last_connected_at: expect.any(String),
      cohort: (await t.api('GET', `/cohorts/${cohort.prn}`)).body.cohort,
      // Of the bundle it reports running: it has reported none.
      manifest: null,
    });
    expect((await deviceEvents(t.api, 'checked_for_release', device.prn)).length).toBeGreaterThanOrEqual(2);
  });

  it('answers no_update for a device outside any cohort', async () => {
    const { certificate } = await certifiedDevice(null);
    expect((await deviceRequest(t, '/update', { credentials: certificate })).body).toEqual({ status: 'no_update' });
  });
});

describe('device routes of other contexts', () => {
  it('serves the tunnels routes behind the same client-certificate authentication', async () => {
    const { certificate } = await certifiedDevice(null);
    const listed = await deviceRequest(t, '/tunnels', { credentials: certificate });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body).toMatchObject({ tunnels: [], next_page: null });
    const anonymous = await deviceRequest(t, '/tunnels', { credentials: null });
    expect(anonymous.status).toBe(401);
  });
});
