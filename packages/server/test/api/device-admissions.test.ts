/**
 * The admission statement of the device API (src/device-api/admissions.ts), on the real database:
 * requests admitted at the same moment share one statement, yet each gets its own answer, and
 * `device.connected` and `last_connected_at` are written only for the devices it admits.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedEvent, type ConnectionFacts } from '../../src/device-api/auth-events';
import { admitDevice, type Admission } from '../../src/device-api/admissions';
import { makeLeafCertificate, makeRootCa, type TestCertificate } from '../support/certificates';
import { deviceRequest } from '../support/device-client';
import { createDevice, createProduct, deviceEvents, registerDeviceCertificate, registeredCa } from '../support/device-fleet';
import { startTestServer, type TestServer } from '../support/server';
import { expectPlannedOnce } from '../support/statement-plans';
import { startReceiver, type Receiver } from '../support/webhook-receiver';
import { webhookDeliveries } from '../../src/webhooks/schema';
import { writeCheck } from '../../src/updates/check-writes';
import type { NewEvent } from '../../src/events/service';
import { checkedForReleaseData } from '../support/event-data';

let t: TestServer;
let receiver: Receiver;
let root: TestCertificate;
let caId: string;
let productPrn: string;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ webhookAllowPrivate: true, webhookCaFiles: [receiver.caFile] });
  root = await makeRootCa();
  caId = (await registeredCa(t.api, root)).prn.split(':').at(-1)!;
  productPrn = await createProduct(t.api, 'admissions');
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const idOf = (prn: string) => prn.split(':').at(-1)!;
const fingerprintOf = (certificate: TestCertificate) => certificate.cert.fingerprint256.replace(/:/g, '');

/** A device and a certificate of `root`, registered to it unless `register` is false. */
async function device(identifier: string, register = true) {
  const created = await createDevice(t.api, productPrn, identifier);
  const certificate = await makeLeafCertificate(root, identifier);
  if (register) await registerDeviceCertificate(t.api, created.prn, certificate);
  return { prn: created.prn as string, id: idOf(created.prn), fingerprint: fingerprintOf(certificate), certificate };
}

function factsOf(fingerprint: string): ConnectionFacts {
  return { ip: '127.0.0.1', route: '/me', headers: {}, certificate: { authority_key_identifier: null, common_name: null, fingerprint }, ca_certificate: null };
}

function newConnection(d: { id: string; fingerprint: string }, overrides: Partial<Admission> = {}): Admission {
  const identity = { id: d.id, organizationId: t.organizationId, identifier: d.id, cohortId: null };
  return { deviceId: d.id, organizationId: t.organizationId, fingerprint: d.fingerprint, caId, touch: true, event: connectedEvent(identity, factsOf(d.fingerprint)), ...overrides };
}

describe('admitDevice', () => {
  it('answers each of a moment\'s admissions on its own, and records only the admitted ones', async () => {
    const admitted = await device('adm-ok');
    const archived = await device('adm-archived');
    await t.api('PATCH', `/devices/${archived.prn}`, { archived: true });
    const unregistered = await device('adm-unregistered', false);
    const otherCa = await device('adm-other-ca');
    const strayCaId = '00000000-0000-4000-8000-000000000000';

    // Submitted in the same turn of the event loop: they leave in one group.
    const results = await Promise.all([
      admitDevice(t.server.platform.db, newConnection(admitted)),
      admitDevice(t.server.platform.db, newConnection(archived)),
      admitDevice(t.server.platform.db, newConnection(unregistered)),
      admitDevice(t.server.platform.db, newConnection(otherCa, { caId: strayCaId })),
    ]);

    expect(results[0]).toMatchObject({ admitted: true, device: { id: admitted.id, identifier: 'adm-ok', archived: false } });
    expect(results[0].device?.lastConnectedAt).toBeTruthy();
    expect(results.slice(1).map((r) => (r.admitted ? 'admitted' : r.reason))).toEqual(['device_is_archived', 'certificate_not_registered', 'unknown_ca']);
    for (const d of [admitted, archived, unregistered, otherCa]) {
      expect((await deviceEvents(t.api, 'connected', d.prn)).length, d.prn).toBe(d === admitted ? 1 : 0);
      const wire = (await t.api('GET', `/devices/${d.prn}`)).body.device;
      expect(wire.last_connected_at === null, d.prn).toBe(d !== admitted);
    }
  });

  it('runs the webhook outbox rule for device.connected: a delivery per enabled webhook subscribed to it, none for a refused device', async () => {
    const subscribed = await t.api('POST', '/webhooks', { url: receiver.url, enabled_events: ['device.release_changed'] });
    const elsewhere = await t.api('POST', '/webhooks', { url: receiver.url, enabled_events: ['device.release_changed'] });
    expect([subscribed.status, elsewhere.status]).toEqual([201, 201]);
    // The API offers only release_changed and test_fire; the outbox rule itself serves any event.
    await t.server.platform.db.execute(sql`update webhooks set enabled_events = '["device.connected"]'::jsonb where id = ${idOf(subscribed.body.webhook.prn)}`);
    const admitted = await device('adm-webhook');
    const unregistered = await device('adm-webhook-unregistered', false);
    const results = await Promise.all([admitDevice(t.server.platform.db, newConnection(admitted)), admitDevice(t.server.platform.db, newConnection(unregistered))]);
    expect(results.map((r) => r.admitted)).toEqual([true, false]);

    const [event] = await deviceEvents(t.api, 'connected', admitted.prn);
    const deliveries = (await t.server.platform.db.select().from(webhookDeliveries)).filter((d) => d.eventId === idOf(event.prn));
    expect(deliveries.map((d) => d.webhookId)).toEqual([idOf(subscribed.body.webhook.prn)]);
    expect(await deviceEvents(t.api, 'connected', unregistered.prn)).toHaveLength(0);
    for (const hook of [subscribed, elsewhere]) await t.api('DELETE', `/webhooks/${hook.body.webhook.prn}`);
  });

  it('writes last_connected_at once per interval, whoever asks, and re-admits without an event', async () => {
    const d = await device('adm-touch');
    const first = await admitDevice(t.server.platform.db, newConnection(d));
    // Another process (no memory of the first write) asks again at once: the statement's own condition holds it back.
    const again = await admitDevice(t.server.platform.db, { ...newConnection(d), event: null, caId: null });
    expect(first.admitted && again.admitted).toBe(true);
    expect(again.device?.lastConnectedAt).toBe(first.device?.lastConnectedAt);
    expect(await deviceEvents(t.api, 'connected', d.prn)).toHaveLength(1);
  });

  it('keeps one admission\'s error its own when its group fails', async () => {
    const good = await device('adm-group-good');
    const results = await Promise.allSettled([
      admitDevice(t.server.platform.db, newConnection(good)),
      // Not a uuid: the group's statement fails as a whole, then each admission is retried alone.
      admitDevice(t.server.platform.db, newConnection({ id: 'not-a-uuid', fingerprint: good.fingerprint })),
    ]);
    expect(results[0]).toMatchObject({ status: 'fulfilled', value: { admitted: true } });
    expect(results[1].status).toBe('rejected');
    expect(await deviceEvents(t.api, 'connected', good.prn)).toHaveLength(1);
  });
});

describe('an admission guard on an update check\'s write', () => {
  /** The guard of a later request on `d`'s connection, with the row version its last admission read. */
  async function guardOf(d: { id: string; fingerprint: string }) {
    const read = await admitDevice(t.server.platform.db, { ...newConnection(d), event: null, caId: null, touch: false });
    if (!read.admitted) throw new Error('not admitted');
    return { deviceId: d.id, organizationId: t.organizationId, fingerprint: d.fingerprint, version: read.version, caId: null };
  }

  function checked(d: { id: string; prn: string }): NewEvent {
    return { organizationId: t.organizationId, type: 'device', subtype: 'checked_for_release', actorPrn: d.prn, resourcePrn: d.prn, data: checkedForReleaseData(d.prn) };
  }

  it('keeps a check\'s events only where its guard holds, in a group of any kind', async () => {
    const steady = await device('guard-steady');
    const changed = await device('guard-changed');
    const unregistered = await device('guard-unregistered');
    const archived = await device('guard-archived');
    const reporting = await device('guard-reporting');
    const guards = [await guardOf(steady), await guardOf(changed), await guardOf(unregistered), await guardOf(archived)];
    // Each made after its guard was read: a new row version, a deleted certificate, an archive.
    await t.api('PATCH', `/devices/${changed.prn}`, { tags: ['moved'] });
    const [record] = (await t.api('GET', `/device_certificates?device_prn=${unregistered.prn}`)).body.device_certificates;
    await t.api('DELETE', `/device_certificates/${record.prn}`);
    await t.api('PATCH', `/devices/${archived.prn}`, { archived: true });
    const db = t.server.platform.db;
    const guarded = [steady, changed, unregistered, archived].map((d, i) => ({ deviceId: d.id, events: [checked(d)], deviceUpdate: null, claim: null, guard: guards[i] }));

    // Events only: the events statement. With a device update beside them: the full statement.
    const eventsOnly = await Promise.all(guarded.slice(0, 2).map((write) => writeCheck(db, write)));
    const reportedState = { deviceId: reporting.id, releasePrn: null, bundlePrn: null, releaseVersion: '2.0.0' };
    const mixed = await Promise.all([...guarded.slice(2).map((write) => writeCheck(db, write)), writeCheck(db, { deviceId: reporting.id, events: [checked(reporting)], deviceUpdate: reportedState, claim: null })]);

    expect(eventsOnly).toEqual(['written', 'not_admitted']);
    expect(mixed).toEqual(['not_admitted', 'not_admitted', 'written']);
    for (const [d, count] of [[steady, 1], [changed, 0], [unregistered, 0], [archived, 0], [reporting, 1]] as const) {
      expect((await deviceEvents(t.api, 'checked_for_release', d.prn)).length, d.prn).toBe(count);
    }
  });

  it('holds while the row is unchanged, and fails once the device\'s own check wrote to it', async () => {
    const d = await device('guard-own-write');
    const db = t.server.platform.db;
    const guard = await guardOf(d);
    expect(await writeCheck(db, { deviceId: d.id, events: [checked(d)], deviceUpdate: null, claim: null, guard })).toBe('written');
    expect(await writeCheck(db, { deviceId: d.id, events: [checked(d)], deviceUpdate: null, claim: null, guard })).toBe('written');
    await writeCheck(db, { deviceId: d.id, events: [], deviceUpdate: { deviceId: d.id, releasePrn: null, bundlePrn: null, releaseVersion: '3.0.0' }, claim: null });
    expect(await writeCheck(db, { deviceId: d.id, events: [checked(d)], deviceUpdate: null, claim: null, guard })).toBe('not_admitted');
    expect(await writeCheck(db, { deviceId: d.id, events: [checked(d)], deviceUpdate: null, claim: null, guard: await guardOf(d) })).toBe('written');
    expect(await deviceEvents(t.api, 'checked_for_release', d.prn)).toHaveLength(3);
  });
});

describe('a new connection\'s guard (a reconnecting device\'s first check)', () => {
  it('holds only while the CA that vouched is registered, and keeps device.connected only where it holds', async () => {
    const d = await device('guard-new-connection');
    const db = t.server.platform.db;
    const read = await admitDevice(db, { ...newConnection(d), event: null, touch: false });
    if (!read.admitted) throw new Error('not admitted');
    const guard = { deviceId: d.id, organizationId: t.organizationId, fingerprint: d.fingerprint, version: read.version, caId };
    const checked: NewEvent = { organizationId: t.organizationId, type: 'device', subtype: 'checked_for_release', actorPrn: d.prn, resourcePrn: d.prn, data: checkedForReleaseData(d.prn) };
    const write = (caOfGuard: string) => ({
      deviceId: d.id,
      connection: { event: connectedEvent({ id: d.id, organizationId: t.organizationId, identifier: d.id, cohortId: null }, factsOf(d.fingerprint)), touch: false },
      events: [checked],
      deviceUpdate: null,
      claim: null,
      guard: { ...guard, caId: caOfGuard },
    });
    expect(await writeCheck(db, write('00000000-0000-4000-8000-000000000000'))).toBe('not_admitted');
    expect(await deviceEvents(t.api, 'connected', d.prn)).toHaveLength(0);
    expect(await writeCheck(db, write(caId))).toBe('written');
    expect(await deviceEvents(t.api, 'connected', d.prn)).toHaveLength(1);
    expect(await deviceEvents(t.api, 'checked_for_release', d.prn)).toHaveLength(1);
  });
});

describe('the admission statements', () => {
  it.skipIf(!process.env.DATABASE_URL)('are planned once per database connection, whatever each group holds (PostgreSQL only: set DATABASE_URL)', async () => {
    const db = t.server.platform.db;
    const d = await device('adm-planned');
    const fresh = await device('adm-planned-other');
    // More executions than PostgreSQL's five custom plans, with groups of different sizes.
    for (let i = 0; i < 8; i += 1) {
      await Promise.all([admitDevice(db, newConnection(d)), ...(i % 2 ? [admitDevice(db, newConnection(fresh))] : [])]);
      await admitDevice(db, { ...newConnection(d), event: null, caId: null, touch: false });
    }
    await expectPlannedOnce(db, 'device_api_');
  });
});

describe('a reconnecting device', () => {
  it('is admitted as the device its certificate is registered to now, not the one this process remembers', async () => {
    const first = await device('adm-moved-from');
    const second = await device('adm-moved-to', false);
    const credentials = { credentials: { certPem: first.certificate.certPem, keyPem: first.certificate.keyPem } };
    expect((await deviceRequest(t, '/device/me', credentials)).body.data.prn).toBe(first.prn);
    // Moved behind this process's back (as another server process's writes would be): the
    // remembered device is only a hint the admission statement checks.
    await t.server.platform.db.execute(sql`update device_certificates set device_id = ${second.id} where fingerprint = ${first.fingerprint}`);
    expect((await deviceRequest(t, '/device/me', credentials)).body.data.prn).toBe(second.prn);
    expect(await deviceEvents(t.api, 'connected', second.prn)).toHaveLength(1);
  });
});
