/**
 * `device.connected` and `device.disconnected` in the public API's shapes (events reference
 * page): the device object (prn, identifier, cohort), the client's address, its certificate and
 * the CA that vouched for it, the route and monitored headers of the first request; and a
 * disconnect recorded when an admitted connection closes, never for a refused one. Both write
 * paths of `device.connected` are covered: a first GET /update records it in its check's
 * statement (updates/check-writes.ts), any other first request by the admission statement
 * (device-api/admissions.ts). Over real mutual TLS and the real database.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { makeLeafCertificate, makeRootCa, type TestCertificate } from '../support/certificates';
import { deviceAgent, deviceRequest, type DeviceCredentials } from '../support/device-client';
import { createDevice, createProduct, deviceEvents, registerDeviceCertificate, registeredCa } from '../support/device-fleet';
import { startTestServer, type TestServer } from '../support/server';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver';

let t: TestServer;
let receiver: Receiver;
let root: TestCertificate;
let productPrn: string;
let cohortPrn: string;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ webhookAllowPrivate: true, webhookCaFiles: [receiver.caFile], webhookPollMs: 50 });
  root = await makeRootCa();
  await registeredCa(t.api, root);
  productPrn = await createProduct(t.api, 'connection-events');
  const cohort = await t.api('POST', '/cohorts', { name: 'field-units', product_prn: productPrn });
  expect(cohort.status, JSON.stringify(cohort.body)).toBe(201);
  cohortPrn = cohort.body.cohort.prn;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const fingerprintOf = (certificate: TestCertificate) => certificate.cert.fingerprint256.replace(/:/g, '');

/** A key identifier extension as OpenSSL prints it, upper-case hex without colons. */
function keyIdentifier(certificate: TestCertificate, extension: 'authorityKeyIdentifier' | 'subjectKeyIdentifier'): string {
  const dir = mkdtempSync(join(tmpdir(), 'canopy-ext-'));
  try {
    const file = join(dir, 'cert.pem');
    writeFileSync(file, certificate.certPem);
    const text = execFileSync('openssl', ['x509', '-in', file, '-noout', '-ext', extension], { encoding: 'utf8' });
    const value = text.split('\n')[1].trim().replace(/^keyid:/, '');
    return value.replace(/:/g, '').toUpperCase();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function enrolledDevice(identifier: string, extra: Record<string, unknown> = {}): Promise<{ prn: string; certificate: TestCertificate; credentials: DeviceCredentials }> {
  const device = await createDevice(t.api, productPrn, identifier, extra);
  const certificate = await makeLeafCertificate(root, identifier);
  await registerDeviceCertificate(t.api, device.prn, certificate);
  return { prn: device.prn, certificate, credentials: { certPem: certificate.certPem, keyPem: certificate.keyPem } };
}

function expectConnectedData(data: Record<string, any>, device: { prn: string; certificate: TestCertificate }, identifier: string, cohort: { cohort_prn: string; cohort_name: string } | null, route: string) {
  expect(data.device).toEqual({ prn: device.prn, identifier, cohort });
  expect(data.ip_address).toMatch(/127\.0\.0\.1/);
  expect(data.certificate).toEqual({
    authority_key_identifier: keyIdentifier(device.certificate, 'authorityKeyIdentifier'),
    common_name: identifier,
    fingerprint: fingerprintOf(device.certificate),
  });
  expect(data.certificate.authority_key_identifier).toBe(keyIdentifier(root, 'subjectKeyIdentifier'));
  expect(data.ca_certificate).toEqual({ common_name: root.cert.subject.match(/CN=([^\n]+)/)![1], fingerprint: fingerprintOf(root) });
  expect(data.route).toBe(route);
  // The superseded fields are gone.
  expect(data).not.toHaveProperty('device_prn');
  expect(data).not.toHaveProperty('ip');
  expect(data).not.toHaveProperty('certificate_fingerprint');
}

/** Polls the event log until `subtype` events of the device number `count` (the disconnect is written after the socket closes). */
async function eventsEventually(subtype: string, prn: string, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = await deviceEvents(t.api, subtype, prn);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('device.connected', () => {
  it('names the device, its cohort, certificate, CA, route and headers when the first request is GET /update', async () => {
    const device = await enrolledDevice('conn-ev-update', { cohort_prn: cohortPrn });
    const headers = { 'canopy-release-version': '1.0.0', 'x-canopy-uuid': 'uuid-1', 'x-other': 'no' };
    expect((await deviceRequest(t, '/update?x=1', { credentials: device.credentials, headers })).status).toBe(200);
    // A new connection, its chain remembered now (the speculative path of connection-admission.ts).
    expect((await deviceRequest(t, '/update', { credentials: device.credentials, headers })).status).toBe(200);
    const connected = await deviceEvents(t.api, 'connected', device.prn);
    expect(connected).toHaveLength(2);
    for (const event of connected) {
      expectConnectedData(event.data.data, device, 'conn-ev-update', { cohort_prn: cohortPrn, cohort_name: 'field-units' }, '/update');
      expect(event.data.data.headers).toEqual({ 'canopy-release-version': '1.0.0', 'x-canopy-uuid': 'uuid-1' });
    }
  });

  it('names them the same when another route admits the connection, with the cohort as it is now', async () => {
    const device = await enrolledDevice('conn-ev-me');
    expect((await deviceRequest(t, '/device/me', { credentials: device.credentials })).status).toBe(200);
    // Moved into a cohort: the next connection (its device row remembered by this process) names it.
    expect((await t.api('PATCH', `/devices/${device.prn}`, { cohort_prn: cohortPrn })).status).toBe(200);
    expect((await deviceRequest(t, '/device/me', { credentials: device.credentials })).status).toBe(200);
    const connected = await deviceEvents(t.api, 'connected', device.prn);
    expect(connected).toHaveLength(2);
    // Newest first.
    expectConnectedData(connected[1].data.data, device, 'conn-ev-me', null, '/device/me');
    expectConnectedData(connected[0].data.data, device, 'conn-ev-me', { cohort_prn: cohortPrn, cohort_name: 'field-units' }, '/device/me');
    expect(connected[0].data.data.headers).toEqual({});
  });
});

describe('device.disconnected', () => {
  it('is recorded once when an admitted connection closes, with the device, address and duration', async () => {
    const device = await enrolledDevice('disc-ev', { cohort_prn: cohortPrn });
    const agent = deviceAgent(t, device.credentials);
    const opened = Date.now();
    try {
      expect((await deviceRequest(t, '/update', { agent })).status).toBe(200);
      expect((await deviceRequest(t, '/device/me', { agent })).status).toBe(200);
      // Open: nothing recorded yet.
      expect(await deviceEvents(t.api, 'disconnected', device.prn)).toHaveLength(0);
    } finally {
      agent.destroy();
    }
    const closed = Date.now();
    const [event, ...more] = await eventsEventually('disconnected', device.prn, 1);
    expect(more).toHaveLength(0);
    expect(event).toMatchObject({ type: 'device', actor_prn: device.prn, resource_prn: device.prn });
    const data = event.data.data;
    expect(data.device).toEqual({ prn: device.prn, identifier: 'disc-ev', cohort: { cohort_prn: cohortPrn, cohort_name: 'field-units' } });
    expect(data.ip_address).toMatch(/127\.0\.0\.1/);
    expect(data.duration_ms).toBeGreaterThanOrEqual(0);
    expect(data.duration_ms).toBeLessThanOrEqual(closed - opened + 1_000);
    expect(Date.parse(data.connected_at)).toBeGreaterThanOrEqual(opened - 1_000);
    // Found by the events filter's subtype, as any subtype is.
    expect((await t.api('GET', `/events?subtype=disconnected&resource_prn=${device.prn}`)).body.events).toHaveLength(1);
  });

  it('is not recorded for a refused connection', async () => {
    const refused = await enrolledDevice('disc-ev-archived');
    expect((await t.api('PATCH', `/devices/${refused.prn}`, { archived: true })).status).toBe(200);
    expect((await deviceRequest(t, '/device/me', { credentials: refused.credentials })).status).toBe(401);
    // An admitted connection closed after the refused one: once its disconnect is recorded, the refused one's would be too.
    const admitted = await enrolledDevice('disc-ev-admitted');
    expect((await deviceRequest(t, '/device/me', { credentials: admitted.credentials })).status).toBe(200);
    expect(await eventsEventually('disconnected', admitted.prn, 1)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await deviceEvents(t.api, 'authentication_failed', refused.prn)).toHaveLength(1);
    expect(await deviceEvents(t.api, 'disconnected', refused.prn)).toHaveLength(0);
  });
});

describe('webhook payloads', () => {
  it('deliver device.connected and device.disconnected as they are stored', async () => {
    const url = `${receiver.url}?hook=connection-events`;
    const hook = await t.api('POST', '/webhooks', { url, enabled_events: ['device.release_changed'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    // The API's list of events to subscribe to is narrower; the outbox serves any event.
    const hookId = hook.body.webhook.prn.split(':').at(-1);
    await t.server.platform.db.execute(sql`update webhooks set enabled_events = '["device.connected", "device.disconnected"]'::jsonb where id = ${hookId}`);
    const device = await enrolledDevice('hook-ev', { cohort_prn: cohortPrn });
    expect((await deviceRequest(t, '/device/me', { credentials: device.credentials })).status).toBe(200);
    const delivered = (subtype: string) => receiver.requests.find((r) => r.path.includes('connection-events') && r.body?.data?.type === subtype && r.body.data.data.device?.prn === device.prn);
    await waitFor(() => delivered('connected') !== undefined && delivered('disconnected') !== undefined, 'both deliveries');
    for (const subtype of ['connected', 'disconnected']) {
      const [stored] = await deviceEvents(t.api, subtype, device.prn);
      expect(delivered(subtype)!.body).toMatchObject({ prn: stored.prn, type: 'device', data: stored.data });
    }
    expect(delivered('connected')!.body.data.data.device.cohort).toEqual({ cohort_prn: cohortPrn, cohort_name: 'field-units' });
  });
});
