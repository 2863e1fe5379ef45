import { describe, expect, it } from 'vitest';
import { makeLeafCertificate, makeRootCa, makeVerificationCertificate } from '../support/certificates';
import { verificationCode } from '../support/device-fleet';
import { deviceApi } from '../support/device-json-client';
import { archiveFor, legacyOrg, uploadMultipart } from '../support/legacy';
import { expectFieldError } from '../support/resource-checks';
import { useTestServer } from '../support/server';

const t = useTestServer();

describe('legacy organization-scoped CA certificates, devices and device certificates', () => {
  it('register and read by serial and identifier, with the legacy device fields, and stay in their organization', async () => {
    const org = await legacyOrg(t, 'hub');
    const other = await legacyOrg(t, 'hub');
    const ca = await makeRootCa();
    const verification = await makeVerificationCertificate(ca, await verificationCode(org.api));
    const registered = await org.api('POST', `/orgs/${org.name}/ca_certificates`, { cert: ca.certPem, verification_cert: verification.certPem, description: 'factory' });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const serial = registered.body.data.serial;
    expect((await org.api('GET', `/orgs/${org.name}/ca_certificates/${serial}`)).body.data).toMatchObject({ serial, description: 'factory' });
    expect((await org.api('GET', `/orgs/${org.name}/ca_certificates`)).body.data.map((c: any) => c.serial)).toEqual([serial]);

    const devices = `/orgs/${org.name}/products/hub/devices`;
    const created = await org.api('POST', devices, { identifier: 'hub-1', tags: ['beta'], healthy: true, last_communication: 'never' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ identifier: 'hub-1', tags: ['beta'], healthy: true, last_communication: 'never', status: 'offline', version: 'unknown', firmware_metadata: null, quarantined: false });
    expectFieldError(await org.api('POST', devices, { identifier: 'hub-1' }), 'identifier', 'taken');
    expectFieldError(await org.api('POST', devices, { identifier: '' }), 'identifier', 'too_short');

    const leaf = await makeLeafCertificate(ca, 'hub-1');
    const certificates = `${devices}/hub-1/certificates`;
    const added = await org.api('POST', certificates, { cert: leaf.certPem });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const leafSerial = added.body.data.serial;
    expect((await org.api('GET', `${certificates}/${leafSerial}`)).body.data.device_prn).toBe(created.body.data.prn);
    expect((await org.api('GET', certificates)).body.data).toHaveLength(1);

    // The device calls the legacy update endpoint; its legacy view then shows what it reported.
    const firmware = archiveFor(org, 'hub', '3.1.0');
    expect((await uploadMultipart(t.url, `/orgs/${org.name}/products/hub/firmwares`, org.key, firmware.bytes)).status).toBe(201);
    const device = deviceApi(t, leaf);
    expect((await device('GET', '/device/update', undefined, { headers: { 'x-canopy-uuid': firmware.uuid } })).status).toBe(200);
    const seen = (await org.api('GET', `${devices}/hub-1`)).body.data;
    expect(seen).toMatchObject({ version: '3.1.0', status: 'online', firmware_metadata: { uuid: firmware.uuid, version: '3.1.0', product: 'hub' } });
    expect(Date.parse(seen.last_communication)).toBeGreaterThan(Date.now() - 60_000);

    // healthy: false is quarantine.
    const unhealthy = await org.api('PUT', `${devices}/hub-1`, { healthy: false, last_communication: '2020-01-01T00:00:00Z' });
    expect(unhealthy.body.data).toMatchObject({ healthy: false, quarantined: true });
    expect(unhealthy.body.data.last_communication).toBe(seen.last_communication);

    // Another organization: every path is 404, by its own name or by mine.
    for (const path of [
      `/orgs/${org.name}/ca_certificates`,
      `/orgs/${org.name}/ca_certificates/${serial}`,
      `/orgs/${other.name}/ca_certificates/${serial}`,
      devices,
      `${devices}/hub-1`,
      `/orgs/${other.name}/products/hub/devices/hub-1`,
      certificates,
      `${certificates}/${leafSerial}`,
      `/orgs/${other.name}/products/hub/devices/hub-1/certificates/${leafSerial}`,
    ]) {
      expect((await other.api('GET', path)).status, path).toBe(404);
      if (path.includes(serial) || path.endsWith('hub-1') || path.endsWith(leafSerial)) expect((await other.api('DELETE', path)).status, path).toBe(404);
    }
    expect((await other.api('PUT', `${devices}/hub-1`, { healthy: true })).status).toBe(404);
    expect((await other.api('POST', certificates, { cert: leaf.certPem })).status).toBe(404);
    expect((await other.api('GET', `/orgs/${other.name}/products/hub/devices`)).body.data).toEqual([]);

    // A legacy key works; then everything is deleted again.
    const legacyKey = (await org.api('POST', '/api_keys', { name: 'legacy', kind: 'legacy', role: 'write' })).body.api_key.key;
    expect((await org.api('GET', `${devices}/hub-1`, undefined, { key: legacyKey })).status).toBe(200);
    expect((await org.api('DELETE', `${certificates}/${leafSerial}`)).status).toBe(204);
    expect((await org.api('DELETE', `${devices}/hub-1`)).status).toBe(204);
    expect((await org.api('GET', `${devices}/hub-1`)).status).toBe(404);
    expect((await org.api('DELETE', `/orgs/${org.name}/ca_certificates/${serial}`)).status).toBe(204);
    expect((await org.api('GET', `/orgs/${org.name}/ca_certificates/${serial}`)).status).toBe(404);
  });
});
