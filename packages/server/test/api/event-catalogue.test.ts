/**
 * The event catalogue (src/events/catalogue.ts, names from @canopy/sdk/event-catalogue) is
 * enforced where events are written: under test, recordEvent refuses an event it does not
 * declare or whose data does not match its schema, and writes nothing. The device flows whose
 * statements build events in SQL (admission, update check, report, health gate) store rows that
 * match it: read back from the table here, as every test server does when it closes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/service';
import { deviceEnrollment, type EnrolledDevice } from '../support/device-json-client';
import { storedEventProblems } from '../support/event-catalogue-check';
import { useFleet, type FleetBundle } from '../support/fleet';
import { useTestServer } from '../support/server';

const t = useTestServer();
const fleet = useFleet(t);
const enroll = deviceEnrollment(t);

async function storedNames(): Promise<Set<string>> {
  const result = await t.server.platform.db.execute('select distinct type, subtype from events');
  return new Set((result as unknown as { rows: { type: string; subtype: string }[] }).rows.map((row) => `${row.type}.${row.subtype}`));
}

async function eventCount(): Promise<number> {
  const result = await t.server.platform.db.execute('select count(*)::int as n from events');
  return Number((result as unknown as { rows: { n: number }[] }).rows[0].n);
}

describe('recordEvent under test', () => {
  const event = { organizationId: '', type: 'device' as const, actorPrn: null, resourcePrn: null };

  it('refuses an event the catalogue does not declare, and writes nothing', async () => {
    const before = await eventCount();
    await expect(recordEvent(t.server.platform.db, { ...event, organizationId: t.organizationId, subtype: 'exploded', data: {} })).rejects.toThrow(/device\.exploded is not in the event catalogue/);
    expect(await eventCount()).toBe(before);
  });

  it('refuses data that does not match the event schema', async () => {
    const before = await eventCount();
    await expect(recordEvent(t.server.platform.db, { ...event, organizationId: t.organizationId, subtype: 'release_changed', data: { n: 1 } })).rejects.toThrow(
      /device\.release_changed: data does not match its schema/,
    );
    expect(await eventCount()).toBe(before);
  });
});

describe('the device flows', () => {
  let device: EnrolledDevice;
  let bundle: FleetBundle;
  let release: { prn: string };
  beforeAll(async () => {
    device = await enroll.device(t);
    bundle = await fleet.bundle();
    const productPrn = (await t.api('GET', `/devices/${device.prn}`)).body.device.product_prn;
    const cohort = await t.api('POST', '/cohorts', { name: 'catalogue', product_prn: productPrn });
    expect((await t.api('PATCH', `/devices/${device.prn}`, { cohort_prn: cohort.body.cohort.prn })).status).toBe(200);
    const created = await t.api('POST', '/releases', { cohort_prn: cohort.body.cohort.prn, bundle_prn: bundle.prn, name: 'gated', required: false, schedule_date: null, halt_failure_ratio: 0.5, halt_min_reports: 1 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    release = created.body.release;
  });

  it('store only events the catalogue declares, with data of their schemas', async () => {
    // The connection's device.connected and the check's events, in the check's own statement.
    expect((await device.api('GET', '/update')).status).toBe(200);
    // A second request on the connection: the check's statement proves the admission.
    expect((await device.api('GET', '/update', undefined, { headers: { 'canopy-release-prn': release.prn } })).status).toBe(200);
    const report = await device.api('POST', '/update/reports', { status: 'failed', release_prn: release.prn, bundle_prn: bundle.prn, reason: 'boom' });
    expect(report.status, JSON.stringify(report.body)).toBe(201);

    const names = await storedNames();
    for (const name of ['device.connected', 'device.checked_for_release', 'device.update_reported', 'release.halted', 'device.updated', 'audit.created']) {
      expect(names, name).toContain(name);
    }
    expect(await storedEventProblems(t.server.platform.db)).toEqual([]);
  });

  it('finds a stored row the catalogue does not declare (the check every test server runs as it closes)', async () => {
    await t.server.platform.db.execute(
      `insert into events (id, organization_id, type, subtype, data) values (gen_random_uuid(), '${t.organizationId}', 'device', 'exploded', '{}')`,
    );
    const problems = await storedEventProblems(t.server.platform.db);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/device\.exploded is not in the event catalogue/);
    await t.server.platform.db.execute(`delete from events where subtype = 'exploded'`);
  });
});
