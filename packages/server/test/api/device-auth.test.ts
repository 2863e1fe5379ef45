/**
 * Device authentication over real mutual TLS: certificates made here (root, intermediate,
 * device, expired, self-signed), the device API reached through its HTTPS port.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeExpiredCertificate,
  makeIntermediateCa,
  makeLeafCertificate,
  makeRootCa,
  makeLeafWithSubject,
  makeSelfSignedLeaf,
  reissueCa,
  toBase64Pem,
  type TestCertificate,
} from '../support/certificates';
import { deviceAgent, deviceRequest, type DeviceCredentials } from '../support/device-client';
import { issueCertificate } from '../../src/certificates/issue';
import type { x509 } from '../../src/certificates/x509-library';
import { createDevice, createProduct, deviceEvents, registerCa, registerDeviceCertificate, registeredCa, startEnrollmentServer } from '../support/device-fleet';
import type { TestServer } from '../support/server';

let t: TestServer;
let root: TestCertificate;
let productPrn: string;
beforeAll(async () => {
  ({ t, root, productPrn } = await startEnrollmentServer('sensors'));
});
afterAll(async () => {
  await t?.close();
});

const credentials = (certificate: TestCertificate, ...chain: TestCertificate[]): DeviceCredentials => ({
  certPem: [certificate, ...chain].map((c) => c.certPem).join(''),
  keyPem: certificate.keyPem,
});

/** A device with a registered certificate issued by `issuer` (sent with `chain`, the intermediates up to a registered CA). */
async function enrolledDevice(identifier: string, issuer: TestCertificate = root, ...chain: TestCertificate[]) {
  const device = await createDevice(t.api, productPrn, identifier);
  const certificate = await makeLeafCertificate(issuer, identifier);
  await registerDeviceCertificate(t.api, device.prn, certificate, ...chain);
  return { device, certificate };
}

/** A certificate's SHA-256 fingerprint as the server stores it (upper-case hex, no colons). */
const storedFingerprint = (certificate: TestCertificate) => certificate.cert.fingerprint256.replace(/:/g, '');

function expectRefused(res: { status: number; body: any }, reason: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(401);
  expect(res.body.errors[0]).toMatchObject({ code: 'unauthenticated', context: { reason } });
}

describe('device authentication', () => {
  it('authenticates a registered certificate: GET /device/me and GET /update', async () => {
    const { device, certificate } = await enrolledDevice('dev-registered');
    const me = await deviceRequest(t, '/device/me', { credentials: credentials(certificate) });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.data).toMatchObject({ prn: device.prn, identifier: 'dev-registered', quarantined: false });
    expect(me.body.data.last_connected_at).toMatch(/Z$/);
    const update = await deviceRequest(t, '/update', { credentials: credentials(certificate) });
    expect(update.status).toBe(200);
    expect(update.body).toEqual({ status: 'no_update' });
    const expanded = await deviceRequest(t, '/device/me?expand=cohort', { credentials: credentials(certificate) });
    expect(expanded.body.data.cohort).toBeNull();
  });

  it('accepts a chain through an intermediate the device sends', async () => {
    const intermediate = await makeIntermediateCa(root);
    const { device, certificate } = await enrolledDevice('dev-intermediate', intermediate, intermediate);
    const withChain = await deviceRequest(t, '/device/me', { credentials: credentials(certificate, intermediate) });
    expect(withChain.status, JSON.stringify(withChain.body)).toBe(200);
    expect(withChain.body.data.prn).toBe(device.prn);
    // Without the intermediate the registered root cannot be reached.
    expectRefused(await deviceRequest(t, '/device/me', { credentials: credentials(certificate) }), 'unknown_ca');
  });

  it('lets a device hold several live certificates (rotation without downtime)', async () => {
    const { device, certificate: first } = await enrolledDevice('dev-rotating');
    const second = await makeLeafCertificate(root, 'dev-rotating');
    const secondRecord = await registerDeviceCertificate(t.api, device.prn, second);
    for (const certificate of [first, second]) {
      const res = await deviceRequest(t, '/device/me', { credentials: credentials(certificate) });
      expect(res.body.data?.prn).toBe(device.prn);
    }
    const listed = await t.api('GET', `/device_certificates?device_prn=${device.prn}`);
    expect(listed.body.device_certificates).toHaveLength(2);
    expect(secondRecord.fingerprint).toBe(storedFingerprint(second));
    // Deleting the old one: it stops working, the new one keeps working.
    const firstRecord = listed.body.device_certificates.find((c: any) => c.prn !== secondRecord.prn);
    expect((await t.api('DELETE', `/device_certificates/${firstRecord.prn}`)).status).toBe(204);
    expectRefused(await deviceRequest(t, '/device/me', { credentials: credentials(first) }), 'multi_cert_jitr_disabled');
    expect((await deviceRequest(t, '/device/me', { credentials: credentials(second) })).status).toBe(200);
  });

  it('answers 401 with a reason for each bad certificate', async () => {
    const none = await deviceRequest(t, '/update', { credentials: null });
    expectRefused(none, 'no_certificate');

    const stranger = await makeRootCa();
    expectRefused(await deviceRequest(t, '/update', { credentials: credentials(await makeLeafCertificate(stranger, 'dev-stranger')) }), 'unknown_ca');

    expectRefused(await deviceRequest(t, '/update', { credentials: credentials(await makeSelfSignedLeaf('dev-self')) }), 'self_signed');

    // Registered while still valid (registration refuses an expired CA), then left to expire: the
    // margin is wide because a busy machine can take seconds to register it.
    const caExpiresAt = Date.now() + 10_000;
    const expiredCa = await makeRootCa({ notBefore: new Date(Date.now() - 3 * 86_400_000), notAfter: new Date(caExpiresAt) });
    await registeredCa(t.api, expiredCa);
    const underExpired = await makeLeafCertificate(expiredCa, 'dev-under-expired-ca', { notBefore: new Date(Date.now() - 86_400_000) });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, caExpiresAt - Date.now()) + 1_000));
    expectRefused(await deviceRequest(t, '/update', { credentials: credentials(underExpired) }), 'expired');

    const device = await createDevice(t.api, productPrn, 'dev-expired-cert');
    const expired = await makeExpiredCertificate(root, 'dev-expired-cert');
    const refusedRegistration = await t.api('POST', '/device_certificates', { device_prn: device.prn, certificate: Buffer.from(expired.certPem).toString('base64') });
    expect(refusedRegistration.status).toBe(422);
    expect(refusedRegistration.body.errors[0].context).toMatchObject({ field: 'certificate', reason: 'expired' });
    expectRefused(await deviceRequest(t, '/update', { credentials: credentials(expired) }), 'expired');
  });

  it('refuses an archived device and records device.authentication_failed', async () => {
    const { device, certificate } = await enrolledDevice('dev-archived');
    expect((await t.api('PATCH', `/devices/${device.prn}`, { archived: true })).status).toBe(200);
    expectRefused(await deviceRequest(t, '/device/me', { credentials: credentials(certificate) }), 'device_is_archived');
    const [event] = await deviceEvents(t.api, 'authentication_failed', device.prn);
    expect(event.data).toMatchObject({ type: 'authentication_failed', data: { reason: 'device_is_archived', device_prn: device.prn } });
    expect(event.data.data.certificate_fingerprint).toBe(storedFingerprint(certificate));
  });

  it('refuses an unregistered certificate naming an existing device (multi_cert_jitr_disabled)', async () => {
    const { device } = await enrolledDevice('dev-second-cert');
    const unregistered = await makeLeafCertificate(root, 'dev-second-cert');
    expectRefused(await deviceRequest(t, '/device/me', { credentials: credentials(unregistered) }), 'multi_cert_jitr_disabled');
    const [event] = await deviceEvents(t.api, 'authentication_failed', device.prn);
    expect(event.data.data.reason).toBe('multi_cert_jitr_disabled');
  });

  it('refuses an unknown device of a CA without JITP (jitp_disabled), with an event on the CA', async () => {
    const ca = await makeRootCa();
    const registered = await registeredCa(t.api, ca);
    expectRefused(await deviceRequest(t, '/update', { credentials: credentials(await makeLeafCertificate(ca, 'dev-unknown')) }), 'jitp_disabled');
    const [event] = await deviceEvents(t.api, 'authentication_failed', registered.prn);
    expect(event.data.data).toMatchObject({ reason: 'jitp_disabled', ca_certificate_prn: registered.prn, common_name: 'dev-unknown' });
  });

  it('provisions an unknown device just in time from the CA settings', async () => {
    const ca = await makeRootCa();
    const cohort = (await t.api('POST', '/cohorts', { name: 'field', product_prn: productPrn })).body.cohort;
    await registeredCa(t.api, ca, { jitp: { description: 'from the factory', tags: ['jitp', 'v1'], product_name: 'sensors', cohort_prn: cohort.prn, target: 'armv7' } });
    const certificate = await makeLeafCertificate(ca, 'dev-jitp-1');
    const me = await deviceRequest(t, '/device/me?expand=cohort', { credentials: credentials(certificate) });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.data).toMatchObject({
      identifier: 'dev-jitp-1',
      description: 'from the factory',
      tags: ['jitp', 'v1'],
      product_prn: productPrn,
      cohort_prn: cohort.prn,
      target: 'armv7',
    });
    expect(me.body.data.cohort.prn).toBe(cohort.prn);
    const certificates = await t.api('GET', `/device_certificates?device_prn=${me.body.data.prn}`);
    expect(certificates.body.device_certificates.map((c: any) => c.fingerprint)).toEqual([storedFingerprint(certificate)]);
    // Second connection: found by its now registered certificate.
    expect((await deviceRequest(t, '/device/me', { credentials: credentials(certificate) })).body.data.prn).toBe(me.body.data.prn);
  });

  it('provisions one device when its first connections arrive at once', async () => {
    const ca = await makeRootCa();
    await registeredCa(t.api, ca, { jitp: { description: 'burst', tags: [], product_name: 'sensors' } });
    const certificate = await makeLeafCertificate(ca, 'dev-jitp-burst');
    const answers = await Promise.all(Array.from({ length: 6 }, () => deviceRequest(t, '/device/me', { credentials: credentials(certificate) })));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((a) => a.body.data.prn)).size).toBe(1);
    const devices = await t.api('GET', `/devices?search=${encodeURIComponent("identifier:'dev-jitp-burst'")}`);
    expect(devices.body.devices).toHaveLength(1);
  });

  it('fails provisioning cleanly when the JITP product is gone (jitp_failed) and creates nothing', async () => {
    const ca = await makeRootCa();
    const temporary = await createProduct(t.api, 'renamed-later');
    const registered = await registeredCa(t.api, ca, { jitp: { description: 'x', tags: [], product_name: 'renamed-later' } });
    await t.api('PATCH', `/products/${temporary}`, { name: 'renamed-now' });
    expectRefused(await deviceRequest(t, '/update', { credentials: credentials(await makeLeafCertificate(ca, 'dev-jitp-fail')) }), 'jitp_failed');
    const [event] = await deviceEvents(t.api, 'authentication_failed', registered.prn);
    expect(event.data.data).toMatchObject({ reason: 'jitp_failed', detail: 'product_not_found' });
    const devices = await t.api('GET', `/devices?search=${encodeURIComponent("identifier:'dev-jitp-fail'")}`);
    expect(devices.body.devices).toEqual([]);
  });

  it('checks the chain once per connection, records device.connected with the monitored headers, throttles last_connected_at', async () => {
    const { device, certificate } = await enrolledDevice('dev-keepalive');
    const agent = deviceAgent(t, credentials(certificate));
    const headers = { 'canopy-release-version': '1.2.3', 'x-canopy-uuid': 'abc-123', 'x-canopy-platform': 'rpi4', 'x-ignored': 'no' };
    try {
      const ports = new Set<number | undefined>();
      for (let i = 0; i < 5; i++) {
        const res = await deviceRequest(t, '/update', { agent, headers });
        expect(res.status).toBe(200);
        ports.add(res.socketPort);
      }
      expect(ports.size).toBe(1);
      const connected = await deviceEvents(t.api, 'connected', device.prn);
      expect(connected).toHaveLength(1);
      expect(connected[0].data.data).toMatchObject({
        device: { prn: device.prn },
        certificate: { fingerprint: storedFingerprint(certificate) },
        headers: { 'canopy-release-version': '1.2.3', 'x-canopy-uuid': 'abc-123', 'x-canopy-platform': 'rpi4' },
      });
      expect(connected[0].data.data.headers).not.toHaveProperty('x-ignored');
      expect(connected[0].data.data.ip_address).toMatch(/127\.0\.0\.1/);
      const firstSeen = (await t.api('GET', `/devices/${device.prn}`)).body.device.last_connected_at;
      expect(firstSeen).not.toBeNull();
      // A new connection a moment later: a new event, but last_connected_at is not rewritten within a minute.
      await deviceRequest(t, '/update', { credentials: credentials(certificate) });
      expect(await deviceEvents(t.api, 'connected', device.prn)).toHaveLength(2);
      expect((await t.api('GET', `/devices/${device.prn}`)).body.device.last_connected_at).toBe(firstSeen);

      // Deleting the certificate takes effect on the open connection's next request.
      const [record] = (await t.api('GET', `/device_certificates?device_prn=${device.prn}`)).body.device_certificates;
      await t.api('DELETE', `/device_certificates/${record.prn}`);
      expectRefused(await deviceRequest(t, '/update', { agent }), 'certificate_not_registered');
    } finally {
      agent.destroy();
    }
  });

  it('refuses on an open connection\'s next request once its device is archived', async () => {
    const { device, certificate } = await enrolledDevice('dev-archived-while-connected');
    const agent = deviceAgent(t, credentials(certificate));
    try {
      expect((await deviceRequest(t, '/update', { agent })).status).toBe(200);
      expect((await t.api('PATCH', `/devices/${device.prn}`, { archived: true })).status).toBe(200);
      expectRefused(await deviceRequest(t, '/update', { agent }), 'device_is_archived');
    } finally {
      agent.destroy();
    }
  });

  it('answers an open connection\'s next check on the device as it is now, and records nothing of a refused one', async () => {
    const { device, certificate } = await enrolledDevice('dev-changed-while-connected');
    const agent = deviceAgent(t, credentials(certificate));
    const headers = { 'canopy-release-version': '1.0.0' };
    const check = () => deviceRequest(t, '/update', { agent, headers });
    try {
      // The first check stores the reported version; the later ones prove their admission in their own write.
      for (let i = 0; i < 3; i++) expect((await check()).body).toEqual({ status: 'no_update' });
      expect((await t.api('PATCH', `/devices/${device.prn}`, { quarantined: true })).status).toBe(200);
      expect((await check()).body).toEqual({ status: 'device_quarantine' });
      expect((await check()).body).toEqual({ status: 'device_quarantine' });
      expect((await t.api('PATCH', `/devices/${device.prn}`, { quarantined: false })).status).toBe(200);
      expect((await check()).body).toEqual({ status: 'no_update' });
      expect(await deviceEvents(t.api, 'checked_for_release', device.prn)).toHaveLength(6);

      const [record] = (await t.api('GET', `/device_certificates?device_prn=${device.prn}`)).body.device_certificates;
      await t.api('DELETE', `/device_certificates/${record.prn}`);
      expectRefused(await check(), 'certificate_not_registered');
      expect(await deviceEvents(t.api, 'checked_for_release', device.prn)).toHaveLength(6);
      expect(await deviceEvents(t.api, 'authentication_failed', device.prn)).toHaveLength(1);
      expect(await deviceEvents(t.api, 'connected', device.prn)).toHaveLength(1);
    } finally {
      agent.destroy();
    }
  });

  it('refuses the next connection once the CA is deleted, by this server or behind its back', async () => {
    // Each device connects once first, so its verified chain is remembered (verified-chains.ts).
    const viaApi = await makeRootCa();
    const viaApiRecord = await registeredCa(t.api, viaApi);
    const first = await enrolledDevice('dev-ca-deleted-api', viaApi);
    expect((await deviceRequest(t, '/update', { credentials: credentials(first.certificate) })).status).toBe(200);
    expect((await t.api('DELETE', `/ca_certificates/${viaApiRecord.prn}`)).status).toBe(204);
    expectRefused(await deviceRequest(t, '/update', { credentials: credentials(first.certificate) }), 'unknown_ca');

    // Deleted in the database directly, as another server process would: this process's memory
    // of the chain must not keep the device in.
    const behindBack = await makeRootCa();
    const behindBackRecord = await registeredCa(t.api, behindBack);
    const second = await enrolledDevice('dev-ca-deleted-elsewhere', behindBack);
    // Twice: the first connection's check writes last_connected_at, so only the second leaves the
    // row as this process remembers it, and the next connection's check resolves on it (guarded).
    for (let i = 0; i < 2; i++) expect((await deviceRequest(t, '/update', { credentials: credentials(second.certificate) })).status).toBe(200);
    const caId = behindBackRecord.prn.split(':').at(-1);
    await t.server.platform.db.execute(sql`delete from ca_certificates where id = ${caId}`);
    expectRefused(await deviceRequest(t, '/update', { credentials: credentials(second.certificate) }), 'unknown_ca');
  });

  it('answers 400 for malformed headers and expand values', async () => {
    const { certificate } = await enrolledDevice('dev-bad-headers');
    const badPrn = await deviceRequest(t, '/update', { credentials: credentials(certificate), headers: { 'canopy-release-prn': 'not-a-prn' } });
    expect(badPrn.status).toBe(400);
    expect(badPrn.body.errors[0]).toMatchObject({ code: 'parameter', context: { parameter: 'canopy-release-prn' } });
    const badExpand = await deviceRequest(t, '/update?expand=nonsense', { credentials: credentials(certificate) });
    expect(badExpand.status).toBe(400);
    expect(badExpand.body.errors[0].context).toMatchObject({ parameter: 'expand', reason: 'unknown_value' });
    const expanded = await deviceRequest(t, '/update?expand=release,bundle,source_type,manifest', { credentials: credentials(certificate) });
    expect(expanded.body).toMatchObject({ status: 'no_update', release: null, bundle: null, source_type: null });
  });

  it('answers device_quarantine for a quarantined device', async () => {
    const { device, certificate } = await enrolledDevice('dev-quarantined');
    await t.api('PATCH', `/devices/${device.prn}`, { quarantined: true });
    expect((await deviceRequest(t, '/update', { credentials: credentials(certificate) })).body).toEqual({ status: 'device_quarantine' });
  });
});

describe('a reconnecting device\'s first update check (its admission proven by the check\'s write)', () => {
  const headers = { 'canopy-release-version': '1.0.0' };
  /**
   * One request on a new connection. The chain and its device's row are remembered after the
   * device's first; the first writes last_connected_at, so from the third on the check resolves
   * on the remembered row as it still is, and its write proves the admission.
   */
  const connectAndCheck = (certificate: TestCertificate, path = '/update') => deviceRequest(t, path, { credentials: credentials(certificate), headers });
  const deleteCertificateElsewhere = (certificate: TestCertificate) =>
    // As another server process would: this process's memory of the chain is not pruned.
    t.server.platform.db.execute(sql`delete from device_certificates where fingerprint = ${storedFingerprint(certificate)}`);

  it('answers as the device is now, and records one device.connected per connection, then refuses it archived', async () => {
    const { device, certificate } = await enrolledDevice('reconnect-steady');
    for (let i = 0; i < 3; i++) expect((await connectAndCheck(certificate)).body).toEqual({ status: 'no_update' });
    expect((await t.api('PATCH', `/devices/${device.prn}`, { quarantined: true })).status).toBe(200);
    expect((await connectAndCheck(certificate)).body).toEqual({ status: 'device_quarantine' });
    expect((await t.api('PATCH', `/devices/${device.prn}`, { quarantined: false })).status).toBe(200);
    expect((await connectAndCheck(certificate)).body).toEqual({ status: 'no_update' });
    expect(await deviceEvents(t.api, 'connected', device.prn)).toHaveLength(5);
    expect(await deviceEvents(t.api, 'checked_for_release', device.prn)).toHaveLength(5);

    expect((await t.api('PATCH', `/devices/${device.prn}`, { archived: true })).status).toBe(200);
    expectRefused(await connectAndCheck(certificate), 'device_is_archived');
    expect(await deviceEvents(t.api, 'authentication_failed', device.prn)).toHaveLength(1);
    expect(await deviceEvents(t.api, 'connected', device.prn)).toHaveLength(5);
    expect(await deviceEvents(t.api, 'checked_for_release', device.prn)).toHaveLength(5);
  });

  it('refuses a certificate deleted by another process, recording nothing of the check', async () => {
    const { device, certificate } = await enrolledDevice('reconnect-deleted');
    for (let i = 0; i < 2; i++) expect((await connectAndCheck(certificate)).status).toBe(200);
    await deleteCertificateElsewhere(certificate);
    // The full way, as any new connection: the certificate's CN names the device, which no longer holds it.
    expectRefused(await connectAndCheck(certificate), 'multi_cert_jitr_disabled');
    expect(await deviceEvents(t.api, 'authentication_failed', device.prn)).toHaveLength(1);
    expect(await deviceEvents(t.api, 'connected', device.prn)).toHaveLength(2);
    expect(await deviceEvents(t.api, 'checked_for_release', device.prn)).toHaveLength(2);
  });

  it('answers as the device the certificate is registered to now, which is also the actor of its events', async () => {
    const { device: from, certificate } = await enrolledDevice('reconnect-moved-from');
    const to = await createDevice(t.api, productPrn, 'reconnect-moved-to');
    for (let i = 0; i < 2; i++) expect((await connectAndCheck(certificate)).status).toBe(200);
    await t.server.platform.db.execute(sql`update device_certificates set device_id = ${to.prn.split(':').at(-1)} where fingerprint = ${storedFingerprint(certificate)}`);
    expect((await connectAndCheck(certificate)).body).toEqual({ status: 'no_update' });
    const [checked] = await deviceEvents(t.api, 'checked_for_release', to.prn);
    expect(checked).toMatchObject({ actor_prn: to.prn, resource_prn: to.prn });
    expect(await deviceEvents(t.api, 'connected', to.prn)).toHaveLength(1);
    expect(await deviceEvents(t.api, 'checked_for_release', from.prn)).toHaveLength(2);
  });

  it('settles the connection for its next request also when the first fails before its check (400)', async () => {
    const { device, certificate } = await enrolledDevice('reconnect-bad-first');
    for (let i = 0; i < 2; i++) expect((await connectAndCheck(certificate)).status).toBe(200);
    const agent = deviceAgent(t, credentials(certificate));
    try {
      expect((await deviceRequest(t, '/update?expand=nonsense', { agent, headers })).status).toBe(400);
      expect(await deviceEvents(t.api, 'connected', device.prn)).toHaveLength(3);
      expect((await deviceRequest(t, '/update', { agent, headers })).body).toEqual({ status: 'no_update' });
    } finally {
      agent.destroy();
    }
    // The same with the certificate gone: the 400 stays a 400, the refusal is recorded, the next request gets the 401.
    await deleteCertificateElsewhere(certificate);
    const refusedAgent = deviceAgent(t, credentials(certificate));
    try {
      expect((await deviceRequest(t, '/update?expand=nonsense', { agent: refusedAgent, headers })).status).toBe(400);
      expect(await deviceEvents(t.api, 'authentication_failed', device.prn)).toHaveLength(1);
      expectRefused(await deviceRequest(t, '/update', { agent: refusedAgent, headers }), 'multi_cert_jitr_disabled');
      expect(await deviceEvents(t.api, 'connected', device.prn)).toHaveLength(3);
      expect(await deviceEvents(t.api, 'checked_for_release', device.prn)).toHaveLength(3);
    } finally {
      refusedAgent.destroy();
    }
  });
});

describe('isolation between organizations', () => {
  it('keeps a device to its own organization', async () => {
    const other = await t.createOrganization();
    const theirRoot = await makeRootCa();
    await registeredCa(other.api, theirRoot);
    const theirProduct = await createProduct(other.api, 'theirs');
    const theirDevice = await createDevice(other.api, theirProduct, 'dev-shared-name');
    const theirCertificate = await makeLeafCertificate(theirRoot, 'dev-shared-name');
    await registerDeviceCertificate(other.api, theirDevice.prn, theirCertificate);
    const { device: ourDevice, certificate: ourCertificate } = await enrolledDevice('dev-shared-name');

    expect((await deviceRequest(t, '/device/me', { credentials: credentials(theirCertificate) })).body.data.prn).toBe(theirDevice.prn);
    expect((await deviceRequest(t, '/device/me', { credentials: credentials(ourCertificate) })).body.data.prn).toBe(ourDevice.prn);
    // Their events stay theirs.
    const ours = await deviceEvents(t.api, 'connected');
    expect(ours.map((e) => e.resource_prn)).not.toContain(theirDevice.prn);
    expect((await other.api('GET', `/device_certificates?device_prn=${ourDevice.prn}`)).status).toBe(400);
  });

  it("refuses to register a certificate of another organization's CA, telling nothing of that organization", async () => {
    const other = await t.createOrganization();
    await registeredCa(other.api, await makeRootCa());
    const theirDevice = await createDevice(other.api, await createProduct(other.api, 'intruders'), 'dev-coveted');
    // Issued by our registered CA, not registered by us yet.
    const ourCertificate = await makeLeafCertificate(root, 'dev-coveted');
    const register = (api: typeof t.api, devicePrn: string, certificate: TestCertificate) =>
      api('POST', '/device_certificates', { device_prn: devicePrn, certificate: toBase64Pem(certificate.certPem) });

    const taken = await register(other.api, theirDevice.prn, ourCertificate);
    expect(taken.status, JSON.stringify(taken.body)).toBe(422);
    expect(taken.body).toEqual({ errors: [{ code: 'validation', context: { field: 'certificate', reason: 'unknown_ca', position: 'leaf' } }] });

    const ourDevice = await createDevice(t.api, productPrn, 'dev-coveted');
    await registerDeviceCertificate(t.api, ourDevice.prn, ourCertificate);
    expect((await deviceRequest(t, '/device/me', { credentials: credentials(ourCertificate) })).body.data?.prn).toBe(ourDevice.prn);
    // Registered by us now: they get the very same answer, a CA nobody registered too; we get `taken`.
    expect((await register(other.api, theirDevice.prn, ourCertificate)).body).toEqual(taken.body);
    expect((await register(other.api, theirDevice.prn, await makeLeafCertificate(await makeRootCa(), 'dev-coveted'))).body).toEqual(taken.body);
    const again = await register(t.api, ourDevice.prn, ourCertificate);
    expect(again.body.errors[0].context).toEqual({ field: 'certificate', reason: 'taken' });

    // Nothing of our device, CA or certificate reached their event log.
    const theirLog = JSON.stringify((await other.api('GET', '/events?limit=100')).body);
    const [ourCa] = (await t.api('GET', '/ca_certificates?limit=100')).body.ca_certificates;
    for (const ours of [ourDevice.prn, ourCa.prn, storedFingerprint(ourCertificate)]) expect(theirLog).not.toContain(ours);
  });

  it('registers a certificate issued by an intermediate only with the intermediate after it', async () => {
    const intermediate = await makeIntermediateCa(root);
    const device = await createDevice(t.api, productPrn, 'dev-registered-with-chain');
    const certificate = await makeLeafCertificate(intermediate, 'dev-registered-with-chain');
    const alone = await t.api('POST', '/device_certificates', { device_prn: device.prn, certificate: toBase64Pem(certificate.certPem) });
    expect(alone.body.errors?.[0].context).toEqual({ field: 'certificate', reason: 'unknown_ca', position: 'leaf' });
    const withChain = await t.api('POST', '/device_certificates', { device_prn: device.prn, certificate: toBase64Pem(certificate.certPem + intermediate.certPem) });
    expect(withChain.status, JSON.stringify(withChain.body)).toBe(201);
    // Only the device certificate is stored.
    expect(withChain.body.device_certificate.fingerprint).toBe(storedFingerprint(certificate));
    expect((await deviceRequest(t, '/device/me', { credentials: credentials(certificate, intermediate) })).body.data?.prn).toBe(device.prn);
  });

  it('authenticates each organization\'s devices when both registered a CA with the same key', async () => {
    const name = `Same Key CA ${process.pid}`;
    const theirs = await makeRootCa({ commonName: name });
    const ours = await reissueCa(theirs, name);
    const other = await t.createOrganization();
    // Theirs first: the older registration, which an unregistered certificate would go to.
    await registeredCa(other.api, theirs);
    await registeredCa(t.api, ours);
    const theirDevice = await createDevice(other.api, await createProduct(other.api, 'same-key'), 'dev-same-key-theirs');
    const theirCertificate = await makeLeafCertificate(theirs, 'dev-same-key-theirs');
    await registerDeviceCertificate(other.api, theirDevice.prn, theirCertificate);
    const { device: ourDevice, certificate: ourCertificate } = await enrolledDevice('dev-same-key-ours', ours);
    for (let i = 0; i < 2; i++) {
      expect((await deviceRequest(t, '/device/me', { credentials: credentials(ourCertificate) })).body.data?.prn).toBe(ourDevice.prn);
      expect((await deviceRequest(t, '/device/me', { credentials: credentials(theirCertificate) })).body.data?.prn).toBe(theirDevice.prn);
    }
    expect(await deviceEvents(other.api, 'authentication_failed')).toEqual([]);
    expect(await deviceEvents(t.api, 'authentication_failed', ourDevice.prn)).toEqual([]);
  });
});

describe('certificate field content', () => {
  let jitpCa: TestCertificate;
  beforeAll(async () => {
    jitpCa = await makeRootCa();
    await registeredCa(t.api, jitpCa, { jitp: { description: 'odd names', tags: [], product_name: 'sensors' } });
  });

  const oddNames: [string, x509.JsonNameParams][] = [
    ['a NUL byte', [{ CN: ['dev\u0000nul'] }]],
    ['a control character', [{ CN: ['dev\u0001ctl'] }]],
    ['a C1 control character (BMPString)', [{ CN: [{ bmpString: 'dev\u0085' }] }]],
    ['more characters than an identifier', [{ CN: ['d'.repeat(65)] }]],
  ];

  it.each(oddNames)('refuses a device certificate whose CN holds %s: 401 malformed, nothing created', async (_, subject) => {
    const certificate = await makeLeafWithSubject(jitpCa, subject);
    const refused = await deviceRequest(t, '/update', { credentials: credentials(certificate) });
    expectRefused(refused, 'malformed');
    expect(refused.body.errors[0].context).toMatchObject({ position: 'leaf' });
    expect((await t.api('GET', `/device_certificates?limit=100`)).body.device_certificates.map((c: any) => c.fingerprint)).not.toContain(storedFingerprint(certificate));
  });

  it('refuses one registered before names were checked, with an event that names no CN', async () => {
    const device = await createDevice(t.api, productPrn, 'dev-nul-registered');
    const certificate = await makeLeafWithSubject(root, [{ CN: ['dev\u0000registered'] }]);
    const deviceId = device.prn.split(':').at(-1);
    const organizationId = device.prn.split(':')[2];
    await t.server.platform.db.execute(sql`insert into device_certificates (id, organization_id, device_id, certificate, serial, fingerprint, not_before, not_after)
      values (gen_random_uuid(), ${organizationId}, ${deviceId}, ${certificate.certPem}, '1', ${storedFingerprint(certificate)}, now() - interval '1 day', now() + interval '1 day')`);
    expectRefused(await deviceRequest(t, '/update', { credentials: credentials(certificate) }), 'malformed');
    const [event] = await deviceEvents(t.api, 'authentication_failed', device.prn);
    expect(event.data.data).toMatchObject({ reason: 'malformed', common_name: null, certificate_fingerprint: storedFingerprint(certificate) });
  });

  it('answers unknown_ca for a stranger CA whose name holds a NUL byte', async () => {
    const stranger = await issueCertificate({ subject: [{ CN: ['Stranger\u0000CA'] }], isCa: true });
    expectRefused(await deviceRequest(t, '/update', { credentials: credentials(await makeLeafCertificate(stranger, 'dev-of-stranger')) }), 'unknown_ca');
  });

  it('refuses such names on the admin API with a 422 naming the field', async () => {
    const nulCa = await issueCertificate({ subject: [{ CN: ['Factory\u0000CA'] }], isCa: true });
    const registration = await registerCa(t.api, nulCa);
    expect(registration.body.errors?.[0].context).toEqual({ field: 'certificate', reason: 'invalid_characters' });
    const device = await createDevice(t.api, productPrn, 'dev-nul-admin');
    for (const [, subject] of oddNames.slice(0, 3)) {
      const certificate = await makeLeafWithSubject(root, subject);
      const res = await t.api('POST', '/device_certificates', { device_prn: device.prn, certificate: toBase64Pem(certificate.certPem) });
      expect(res.body.errors?.[0].context, JSON.stringify(subject)).toEqual({ field: 'certificate', reason: 'invalid_characters' });
    }
  });
});
