import { describe, expect, it } from 'vitest';
import { makeLeafCertificate, makeRootCa } from '../support/certificates';
import { createDevice, registerDeviceCertificate, registeredCa } from '../support/device-fleet';
import { deviceApi } from '../support/device-json-client';
import { archiveFor, legacyOrg, uploadMultipart, type LegacyOrg } from '../support/legacy';
import { expectFieldError } from '../support/resource-checks';
import { onTestServer, useTestServer } from '../support/server';

const t = useTestServer();

async function firmwareIn(org: LegacyOrg, product: string, version: string) {
  const archive = archiveFor(org, product, version);
  const res = await uploadMultipart(t.url, `/orgs/${org.name}/products/${product}/firmwares`, org.key, archive.bytes);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return archive.uuid;
}

async function enrolledDevice(org: LegacyOrg & { productPrn: string }, identifier: string, tags: string[] | null) {
  const ca = await makeRootCa();
  await registeredCa(org.api, ca);
  const device = await createDevice(org.api, org.productPrn, identifier, { tags });
  const certificate = await makeLeafCertificate(ca, identifier);
  await registerDeviceCertificate(org.api, device.prn, certificate);
  return { prn: device.prn, identifier, api: deviceApi(t, certificate) };
}

describe('legacy deployments', () => {
  it('creates, reads, lists, updates and deletes on both path families', async () => {
    const org = await legacyOrg(t, 'router');
    const v1 = await firmwareIn(org, 'router', '1.0.0');
    const v2 = await firmwareIn(org, 'router', '2.0.0');
    const base = `/orgs/${org.name}/products/router/deployments`;
    const created = await org.api('POST', base, { name: 'beta', firmware: v1, conditions: { version: '~> 1.0', tags: ['beta'] }, is_active: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'beta', firmware_uuid: v1, conditions: { version: '~> 1.0', tags: ['beta'] }, is_active: true, state: 'on', delta_updatable: false, product_prn: org.productPrn });
    const flat = await org.api('POST', '/deployments', { name: 'stable', product_prn: org.productPrn, firmware_uuid: v2, state: 'off', delta_updatable: true });
    expect(flat.status, JSON.stringify(flat.body)).toBe(201);
    expect(flat.body.deployment).toMatchObject({ name: 'stable', firmware_uuid: v2, is_active: false, state: 'off', delta_updatable: true, conditions: { version: '', tags: [] } });

    expect((await org.api('GET', `${base}/beta`)).body.data.prn).toBe(created.body.data.prn);
    expect((await org.api('GET', base)).body.data.map((d: any) => d.name)).toEqual(['stable', 'beta']);
    expect((await org.api('GET', `/deployments?product_prn=${encodeURIComponent(org.productPrn)}&order=asc`)).body.deployments.map((d: any) => d.name)).toEqual(['beta', 'stable']);
    expect((await org.api('GET', `/deployments/${flat.body.deployment.prn}`)).body.deployment.name).toBe('stable');

    const put = await org.api('PUT', `${base}/beta`, { state: 'off', firmware: v2, conditions: { version: '', tags: [] } });
    expect(put.body.data).toMatchObject({ is_active: false, state: 'off', firmware_uuid: v2, conditions: { version: '', tags: [] } });
    const patched = await org.api('PATCH', `/deployments/${flat.body.deployment.prn}`, { is_active: true, name: 'stable-2' });
    expect(patched.body.deployment).toMatchObject({ is_active: true, state: 'on', name: 'stable-2' });

    expect((await org.api('DELETE', `${base}/beta`)).status).toBe(204);
    expect((await org.api('DELETE', `/deployments/${flat.body.deployment.prn}`)).status).toBe(204);
    expect((await org.api('GET', `${base}/beta`)).status).toBe(404);
    expect((await org.api('GET', base)).body.data).toEqual([]);
  });

  it('names the field of every refusal', async () => {
    const org = await legacyOrg(t, 'meter');
    const v1 = await firmwareIn(org, 'meter', '1.0.0');
    const base = `/orgs/${org.name}/products/meter/deployments`;
    expectFieldError(await org.api('POST', base, { firmware: v1 }), 'name', 'required');
    expectFieldError(await org.api('POST', base, { name: 'x' }), 'firmware', 'required');
    expectFieldError(await org.api('POST', base, { name: 'x', firmware: '00000000-0000-0000-0000-000000000000' }), 'firmware', 'not_found');
    expectFieldError(await org.api('POST', base, { name: 'x'.repeat(129), firmware: v1 }), 'name', 'too_long');
    expectFieldError(await org.api('POST', base, { name: 'x', firmware: v1, conditions: { version: 'not a requirement' } }), 'conditions.version', 'invalid_requirement');
    expectFieldError(await org.api('POST', base, { name: 'x', firmware: v1, conditions: { tags: 'beta' } }), 'conditions.tags', 'invalid_tags');
    expectFieldError(await org.api('POST', base, { name: 'x', firmware: v1, conditions: [] }), 'conditions', 'invalid_type');
    expectFieldError(await org.api('POST', base, { name: 'x', firmware: v1, is_active: 'yes' }), 'is_active', 'invalid_type');
    expectFieldError(await org.api('POST', base, { name: 'x', firmware: v1, state: 'maybe' }), 'state', 'invalid_value');
    expectFieldError(await org.api('POST', base, { name: 'x', firmware: v1, state: 'on', is_active: false }), 'state', 'contradicts_is_active');
    expectFieldError(await org.api('POST', base, { name: 'x', firmware: v1, delta_updatable: 1 }), 'delta_updatable', 'invalid_type');
    expectFieldError(await org.api('POST', '/deployments', { name: 'x', firmware_uuid: v1 }), 'product_prn', 'required');
    expectFieldError(await org.api('POST', '/deployments', { name: 'x', product_prn: org.productPrn }), 'firmware_uuid', 'required');
    expect((await org.api('POST', base, { name: 'x', firmware: v1 })).status).toBe(201);
    expectFieldError(await org.api('POST', base, { name: 'x', firmware: v1 }), 'name', 'taken');
    // A firmware of another product of the organization is not this product's.
    await org.api('POST', '/products', { name: 'meter-2' });
    const other = await firmwareIn(org, 'meter-2', '1.0.0');
    expectFieldError(await org.api('POST', base, { name: 'y', firmware: other }), 'firmware', 'not_found');
    const several = await org.api('POST', base, { firmware: 7, is_active: 'x' });
    expect(several.body.errors.map((e: any) => e.context.field).sort()).toEqual(['firmware', 'is_active', 'name']);
  });

  it('is invisible to other organizations on every path', async () => {
    const org = await legacyOrg(t, 'isolated');
    const other = await legacyOrg(t, 'isolated');
    const v1 = await firmwareIn(org, 'isolated', '1.0.0');
    const base = `/orgs/${org.name}/products/isolated/deployments`;
    const created = (await org.api('POST', base, { name: 'mine', firmware: v1 })).body.data;
    const device = await enrolledDevice(org, `iso-${Date.now()}`, null);
    const theirBase = `/orgs/${other.name}/products/isolated/deployments`;
    for (const [method, path, body] of [
      ['GET', base],
      ['POST', base, { name: 'x', firmware: v1 }],
      ['GET', `${base}/mine`],
      ['PUT', `${base}/mine`, { is_active: true }],
      ['DELETE', `${base}/mine`],
      ['GET', `/orgs/${org.name}/products/isolated/devices/${device.identifier}/deployments/mine/stats`],
      ['GET', `${theirBase}/mine`],
      ['GET', `/orgs/${other.name}/products/isolated/devices/${device.identifier}/deployments/mine/stats`],
      ['GET', `/deployments/${created.prn}`],
      ['PATCH', `/deployments/${created.prn}`, { is_active: true }],
      ['DELETE', `/deployments/${created.prn}`],
    ] as [string, string, unknown?][]) {
      expect((await other.api(method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    expectFieldError(await other.api('POST', theirBase, { name: 'x', firmware: v1 }), 'firmware', 'not_found');
    expectFieldError(await other.api('POST', '/deployments', { name: 'x', firmware_uuid: v1, product_prn: org.productPrn }), 'product_prn', 'not_found');
    expect((await other.api('GET', '/deployments')).body.deployments).toEqual([]);
    expect((await org.api('GET', `${base}/mine`)).body.data.is_active).toBe(false);
    // Legacy keys work here as current ones do.
    const legacyKey = (await org.api('POST', '/api_keys', { name: 'legacy', kind: 'legacy', role: 'write' })).body.api_key.key;
    expect((await org.api('GET', `${base}/mine`, undefined, { key: legacyKey })).status).toBe(200);
    expect((await org.api('PATCH', `/deployments/${created.prn}`, { delta_updatable: true }, { key: legacyKey })).status).toBe(200);
  });
});

describe('legacy device update', () => {
  it('offers the newest matching deployment, counts attempts, honours preflight and x-canopy-* headers', async () => {
    const org = await legacyOrg(t, 'cam');
    const v1 = await firmwareIn(org, 'cam', '1.0.0');
    const v2 = await firmwareIn(org, 'cam', '1.1.0');
    const v3 = await firmwareIn(org, 'cam', '2.0.0');
    const base = `/orgs/${org.name}/products/cam/deployments`;
    const device = await enrolledDevice(org, `cam-${Date.now()}`, ['beta']);
    const check = (headers: Record<string, string>, query = '') => device.api('GET', `/device/update${query}`, undefined, { headers });

    const missing = await check({ 'x-canopy-version': '1.0.0' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({ code: 'parameter', context: { parameter: 'x-canopy-uuid', reason: 'required' } });
    expect((await check({ 'x-canopy-uuid': v1 })).body).toEqual({ data: { update_available: false, firmware_url: null, firmware_meta: null, deployment_id: null } });

    await org.api('POST', base, { name: 'to-1.1', firmware: v2, conditions: { version: '~> 1.0', tags: ['beta'] }, is_active: true });
    await org.api('POST', base, { name: 'to-2.0-off', firmware: v3, is_active: false });
    await org.api('POST', base, { name: 'to-2.0-ga', firmware: v3, conditions: { tags: ['ga'] }, is_active: true });

    const offered = await check({ 'x-canopy-uuid': v1, 'x-canopy-version': '1.0.0' });
    expect(offered.status, JSON.stringify(offered.body)).toBe(200);
    expect(offered.body.data).toMatchObject({ update_available: true, deployment_id: null, firmware_meta: { uuid: v2, version: '1.1.0', product: 'cam', platform: 'rpi4', architecture: 'arm', author: 'ops', vcs_identifier: 'abc123', fwup_version: '1.10.1' } });
    const url = new URL(offered.body.data.firmware_url);
    expect(Number(url.searchParams.get('expires')) * 1000 - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect((await fetch(onTestServer(t, offered.body.data.firmware_url))).status).toBe(200);

    // Preflight: no url, no attempt. A partial header set (no version) is answered from the firmware's own version.
    const preflight = await check({ 'x-canopy-uuid': v1 }, '?preflight=true');
    expect(preflight.body.data).toMatchObject({ update_available: true, firmware_url: null, firmware_meta: { uuid: v2 } });
    const stats = `/orgs/${org.name}/products/cam/devices/${device.identifier}/deployments/to-1.1/stats`;
    expect((await org.api('GET', stats)).body).toEqual({ data: { attempts: 1 } });
    await check({ 'x-canopy-uuid': v1 });
    expect((await org.api('GET', stats)).body).toEqual({ data: { attempts: 2 } });

    // Running the offered firmware: no update; an unknown version never matches a version condition.
    expect((await check({ 'x-canopy-uuid': v2, 'x-canopy-version': '1.1.0' })).body.data.update_available).toBe(false);
    expect((await check({ 'x-canopy-uuid': '11111111-2222-4333-8444-555555555555' })).body.data.update_available).toBe(false);
    expect((await check({ 'x-canopy-uuid': v1, 'x-canopy-version': '3.0.0' })).body.data.update_available).toBe(false);
    expect((await org.api('GET', stats)).body).toEqual({ data: { attempts: 2 } });

    // Tags: a device with `ga` gets the newer ga deployment.
    await org.api('PATCH', `/devices/${device.prn}`, { tags: ['beta', 'ga'] });
    expect((await check({ 'x-canopy-uuid': v1, 'x-canopy-version': '1.0.0' })).body.data.firmware_meta.uuid).toBe(v3);
    expect((await check({ 'x-canopy-uuid': 'x'.repeat(200) })).status).toBe(400);
  });
});
