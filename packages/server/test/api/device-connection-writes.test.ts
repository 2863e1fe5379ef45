/**
 * A new connection's writes (`device.connected`, last_connected_at) on the device API: a first
 * GET /update records them in its check's own statement (one commit for both, releases/
 * check-writes.ts); a first request that records nothing has them written alone before its
 * answer leaves (device-api/connection-auth.ts). Over real mutual TLS and the real database.
 */
import { and, asc, eq, ne } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeLeafCertificate, type TestCertificate } from '../support/certificates';
import { deviceAgent, deviceRequest, type DeviceCredentials } from '../support/device-client';
import { createDevice, registerDeviceCertificate, startEnrollmentServer } from '../support/device-fleet';
import type { TestServer } from '../support/server';
import { events } from '../../src/events/schema';
import { writeCheck } from '../../src/updates/check-writes';
import { connectedData } from '../support/event-data';

let t: TestServer;
let root: TestCertificate;
let productPrn: string;
beforeAll(async () => {
  ({ t, root, productPrn } = await startEnrollmentServer('connection-writes'));
});
afterAll(async () => {
  await t?.close();
});

async function enrolledDevice(identifier: string): Promise<{ prn: string; credentials: DeviceCredentials }> {
  const device = await createDevice(t.api, productPrn, identifier);
  const certificate = await makeLeafCertificate(root, identifier);
  await registerDeviceCertificate(t.api, device.prn, certificate);
  return { prn: device.prn, credentials: { certPem: certificate.certPem, keyPem: certificate.keyPem } };
}

/** The device's events as lists order them: (inserted_at, id), with the commit time of each. */
async function eventsOf(devicePrn: string): Promise<{ subtype: string; insertedAt: string }[]> {
  return t.server.platform.db
    .select({ subtype: events.subtype, insertedAt: events.insertedAt })
    .from(events)
    // device.disconnected is written on a socket's close, at its own time: not what these tests
    // order; the audit event of the device's create is the admin's, not the connection's.
    .where(and(eq(events.resourcePrn, devicePrn), eq(events.type, 'device'), ne(events.subtype, 'disconnected')))
    .orderBy(asc(events.insertedAt), asc(events.id));
}

async function lastConnectedAt(devicePrn: string): Promise<string | null> {
  return (await t.api('GET', `/devices/${devicePrn}`)).body.device.last_connected_at;
}

describe('a new connection whose first request is GET /update', () => {
  it('records device.connected with the check, in one statement, listed before the check', async () => {
    const device = await enrolledDevice('conn-update-first');
    const agent = deviceAgent(t, device.credentials);
    try {
      // The device's first connection (its chain not yet known), then a second request on it.
      expect((await deviceRequest(t, '/update', { agent })).status).toBe(200);
      const first = await eventsOf(device.prn);
      expect(first.map((e) => e.subtype)).toEqual(['connected', 'checked_for_release']);
      // One statement: one transaction, one inserted_at.
      expect(first[0].insertedAt).toBe(first[1].insertedAt);
      expect(await lastConnectedAt(device.prn)).not.toBeNull();

      expect((await deviceRequest(t, '/update', { agent })).status).toBe(200);
      expect((await eventsOf(device.prn)).map((e) => e.subtype)).toEqual(['connected', 'checked_for_release', 'checked_for_release']);
    } finally {
      agent.destroy();
    }

    // A new connection of the same device (its chain remembered now): the same again.
    expect((await deviceRequest(t, '/update', { credentials: device.credentials })).status).toBe(200);
    const again = (await eventsOf(device.prn)).slice(3);
    expect(again.map((e) => e.subtype)).toEqual(['connected', 'checked_for_release']);
    expect(again[0].insertedAt).toBe(again[1].insertedAt);
  });

  it('writes the reported state and last_connected_at of the same device row together', async () => {
    const device = await enrolledDevice('conn-update-reported');
    const res = await deviceRequest(t, '/update', { credentials: device.credentials, headers: { 'canopy-release-version': '2.0.0' } });
    expect(res.status).toBe(200);
    const wire = (await t.api('GET', `/devices/${device.prn}`)).body.device;
    expect(wire.last_connected_at).not.toBeNull();
    expect(wire.reported_release_version).toBe('2.0.0');
  });

  it('still records device.connected when the request is answered before its check (400)', async () => {
    const device = await enrolledDevice('conn-update-refused');
    const res = await deviceRequest(t, '/update', { credentials: device.credentials, headers: { 'canopy-release-prn': 'not-a-prn' } });
    expect(res.status).toBe(400);
    expect((await eventsOf(device.prn)).map((e) => e.subtype)).toEqual(['connected']);
    expect(await lastConnectedAt(device.prn)).not.toBeNull();
  });
});

describe('last_connected_at written by an update check', () => {
  it('is written at most once a minute, also when another process (no memory of the write) asks again', async () => {
    const device = await enrolledDevice('conn-touch-other-process');
    const [, , organizationId, , deviceId] = device.prn.split(':');
    const write = () =>
      writeCheck(t.server.platform.db, {
        deviceId,
        connection: { event: { organizationId, type: 'device', subtype: 'connected', actorPrn: device.prn, resourcePrn: device.prn, data: connectedData(device.prn) }, touch: true },
        events: [],
        deviceUpdate: null,
        claim: null,
      });
    expect(await write()).toBe('written');
    const first = await lastConnectedAt(device.prn);
    expect(first).not.toBeNull();
    // The statement's own condition holds the second write back: the same value, and the event still recorded.
    expect(await write()).toBe('written');
    expect(await lastConnectedAt(device.prn)).toBe(first);
    expect((await eventsOf(device.prn)).map((e) => e.subtype)).toEqual(['connected', 'connected']);
  });
});

describe('a new connection whose first request is not an update check', () => {
  it('records device.connected before the answer, and the later check records only itself', async () => {
    const device = await enrolledDevice('conn-me-first');
    const agent = deviceAgent(t, device.credentials);
    try {
      expect((await deviceRequest(t, '/device/me', { agent })).status).toBe(200);
      expect((await eventsOf(device.prn)).map((e) => e.subtype)).toEqual(['connected']);
      expect((await deviceRequest(t, '/update', { agent })).status).toBe(200);
      expect((await eventsOf(device.prn)).map((e) => e.subtype)).toEqual(['connected', 'checked_for_release']);
    } finally {
      agent.destroy();
    }
  });
});
