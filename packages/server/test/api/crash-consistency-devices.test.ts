/**
 * Crash consistency of the device path: the real server process is killed with SIGKILL while
 * devices claim slots of a phased release (update checks over mutual TLS) and post update
 * reports, then restarted on the same data (PGlite's directory, or the PostgreSQL database).
 * After the restart: every slot a device was answered is held by it, once; no more slots than the
 * phase allows are held, and `phase_claim_count`, the claims and the `device.claimed_release`
 * events agree (no lost or duplicated event); every answered report's event is there exactly
 * once; a last round fills the phase to exactly its size. (The admin kill points are in
 * crash-consistency.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database';
import { deviceEnrollment, type EnrolledDevice } from '../support/device-json-client';
import { createFleet } from '../support/fleet';
import { cleanupsAfterAll, freePort, processApi, spawnServer, type ServerProcess } from '../support/server-process';
import type { Api } from '../support/server';

const DEVICES = 24;
const SLOTS = 18;

const cleanup = cleanupsAfterAll();


/** Every event of a type and subtype, oldest first. */
async function allEvents(api: Api, query: string): Promise<any[]> {
  const events: any[] = [];
  let page: string | null = null;
  do {
    const res: { status: number; body: any } = await api('GET', `/events?${query}&order=asc&limit=100${page ? `&page=${encodeURIComponent(page)}` : ''}`);
    expect(res.status).toBe(200);
    events.push(...res.body.events);
    page = res.body.next_page;
  } while (page);
  return events;
}

describe('SIGKILL while devices claim phase slots and report', () => {
  it('keeps claims exact and every answered report once', async () => {
    const database = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-crash-devices-'));
    cleanup(() => database.drop(), () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const key = `cnpy_crash_${randomBytes(24).toString('base64url')}`;
    const [port, devicePort] = [await freePort(), await freePort()];
    const env = {
      CANOPY_DATA_DIR: dataDir,
      CANOPY_BOOTSTRAP_API_KEY: key,
      CANOPY_DEVICE_PORT: String(devicePort),
      CANOPY_LOG_LEVEL: 'warn',
      ...(database.url ? { DATABASE_URL: database.url } : {}),
    };
    let server: ServerProcess = await spawnServer(env, port);
    cleanup(() => server.kill('SIGKILL'));
    const api = processApi(() => server.url, key);
    const target = { deviceUrl: `https://127.0.0.1:${devicePort}`, deviceServerCaPem: fs.readFileSync(path.join(dataDir, 'device-api', 'ca.pem'), 'utf8') };

    // Set-up, answered before the kill: devices in a cohort, r1, then r2 phased to SLOTS devices.
    const fleet = await createFleet(api);
    const organizationId = fleet.productPrn.split(':')[2];
    const enroll = deviceEnrollment(target);
    const devices: EnrolledDevice[] = [];
    for (let i = 0; i < DEVICES; i += 12) devices.push(...(await Promise.all(Array.from({ length: 12 }, () => enroll.device({ api, organizationId })))));
    const productPrn = (await api('GET', `/devices/${devices[0].prn}`)).body.device.product_prn;
    const cohortPrn = (await api('POST', '/cohorts', { name: 'crash', product_prn: productPrn })).body.cohort.prn;
    for (const device of devices) expect((await api('PATCH', `/devices/${device.prn}`, { cohort_prn: cohortPrn })).status).toBe(200);
    const [b1, b2] = [await fleet.bundle(), await fleet.bundle()];
    const base = { cohort_prn: cohortPrn, required: false, schedule_date: null };
    const r1 = (await api('POST', '/releases', { ...base, bundle_prn: b1.prn, name: 'r1' })).body.release;
    const r2res = await api('POST', '/releases', { ...base, bundle_prn: b2.prn, name: 'r2', phase_value: SLOTS });
    expect(r2res.status, JSON.stringify(r2res.body)).toBe(201);
    const r2 = r2res.body.release;

    // In flight at the kill: every device checks (claiming a slot of r2 when one is free) and reports, in a loop.
    const answeredWinners = new Set<string>();
    const answeredReports: string[] = [];
    let stop = false;
    const loops = devices.map(async (device, i) => {
      // Staggered, so the kill meets checks and reports at every stage.
      await new Promise((r) => setTimeout(r, i * 400));
      while (!stop) {
        const check = await device.api('GET', '/update?expand=release', undefined, { headers: { 'canopy-release-prn': r1.prn } }).catch(() => null);
        if (check?.status === 200 && check.body.status === 'update' && check.body.release?.prn === r2.prn) answeredWinners.add(device.prn);
        const report = await device.api('POST', '/update/reports', { status: 'downloading', release_prn: r1.prn, bundle_prn: b1.prn, progress: Math.random() }).catch(() => null);
        if (report?.status === 201) answeredReports.push(report.body.data.prn);
      }
    });
    // The kill lands while slots are being claimed and reports flow (a loaded machine needs a while to get there).
    const flowingBy = Date.now() + 90_000;
    while ((answeredWinners.size < 4 || answeredReports.length < 4) && Date.now() < flowingBy) await new Promise((r) => setTimeout(r, 50));
    await server.kill('SIGKILL');
    stop = true;
    await Promise.all(loops);
    server = await spawnServer(env, port);

    const claimsAfterKill = (await api('GET', `/releases/${r2.prn}`)).body.release.phase_claim_count as number;
    const claimed = await allEvents(api, 'type=device&subtype=claimed_release');
    const claimants = claimed.filter((e) => e.data.data.release === r2.prn || JSON.stringify(e.data.data).includes(r2.prn)).map((e) => e.resource_prn);
    // Exact: at most the phase's size; one event per claim, none twice; every answered slot is held.
    expect(claimsAfterKill).toBeLessThanOrEqual(SLOTS);
    expect(new Set(claimants).size, 'a device claimed twice').toBe(claimants.length);
    expect(claimants.length).toBe(claimsAfterKill);
    for (const prn of answeredWinners) expect(claimants, `answered ${prn} a slot it does not hold`).toContain(prn);
    // Reports: each answered one exactly once; none recorded twice.
    const reported = (await allEvents(api, 'type=device&subtype=update_reported')).map((e) => e.prn);
    expect(new Set(reported).size).toBe(reported.length);
    for (const prn of answeredReports) expect(reported.filter((p) => p === prn), prn).toHaveLength(1);
    expect(answeredReports.length).toBeGreaterThan(0);

    // A last round after the restart fills the phase to exactly its size.
    const winners = await Promise.all(
      devices.map(async (device) => {
        const check = await device.api('GET', '/update?expand=release', undefined, { headers: { 'canopy-release-prn': r1.prn } });
        expect(check.status).toBe(200);
        return check.body.status === 'update' && check.body.release?.prn === r2.prn;
      }),
    );
    expect(winners.filter(Boolean)).toHaveLength(SLOTS);
    expect((await api('GET', `/releases/${r2.prn}`)).body.release.phase_claim_count).toBe(SLOTS);
    const finalClaims = (await allEvents(api, 'type=device&subtype=claimed_release')).filter((e) => JSON.stringify(e.data.data).includes(r2.prn));
    expect(finalClaims).toHaveLength(SLOTS);
    console.info(`device crash consistency (${database.url ? 'PostgreSQL' : 'PGlite'}): ${answeredWinners.size} slots and ${answeredReports.length} reports answered before the kill; ${claimsAfterKill} claims held after it`);
    await server.kill('SIGTERM');
  }, 600_000);
});
