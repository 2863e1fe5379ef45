/**
 * One of every legacy API resource in an organization, and the values the legacy paths name them
 * by: the organization's and product's names, a device identifier, serials, a firmware uuid, a
 * deployment name. The isolation matrix asks another organization for them; the route fuzzer
 * aims generated paths, headers and bodies at them.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { firmwareKey, type FirmwareKey } from './fwup';
import { archiveFor } from './legacy';
import { multipartBody } from './multipart';
import type { Api } from './server';

export interface LegacyResources {
  /** The fwup signing key registered in the organization (archives it signs are accepted). */
  signingKey: FirmwareKey;
  productName: string;
  productPrn: string;
  /**
   * Values by the parameter (path, header or body field) that names them: `org_name`,
   * `product_name`, `identifier`, `uuid`, `deployment_name`, `firmware` (prn or uuid),
   * `firmware_uuid`, `x-canopy-uuid`; `{serial}` by the collection before it
   * (`ca_certificates/serial`, `certificates/serial`). See valueKeys in route-resources.ts.
   */
  values: Map<string, string[]>;
  /** The body fields among `values` that reference another resource (a deployment's firmware), not name a new one. */
  referenceFields: string[];
}

const segment = encodeURIComponent;

async function ok(api: Api, method: string, path: string, body?: unknown): Promise<any> {
  const res = await api(method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

/** `device`: an enrolled device of the organization (a product, a CA and its certificate). */
export async function populateLegacy(api: Api, orgName: string, device: { prn: string; identifier: string }): Promise<LegacyResources> {
  const signingKey = firmwareKey();
  await ok(api, 'POST', '/signing_keys', { name: `fwup-${randomUUID().slice(0, 8)}`, value: signingKey.value });
  const productPrn: string = (await ok(api, 'GET', `/devices/${device.prn}`)).device.product_prn;
  const productName: string = (await ok(api, 'GET', `/products/${productPrn}`)).product.name;
  const scoped = `/orgs/${segment(orgName)}/products/${segment(productName)}`;

  const archive = archiveFor({ signingKey }, productName, '1.0.0');
  const form = multipartBody([{ name: 'firmware', file: archive.bytes }]);
  const uploaded = await api('POST', `${scoped}/firmwares`, undefined, { raw: form.body, headers: { 'content-type': form.contentType } });
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
  const firmwarePrn: string = uploaded.body.data.prn;

  const deploymentName = `deployment-${randomUUID().slice(0, 8)}`;
  await ok(api, 'POST', `${scoped}/deployments`, { name: deploymentName, firmware: archive.uuid, conditions: { version: '~> 1.0', tags: [] }, is_active: true });
  const caSerial: string = (await ok(api, 'GET', `/orgs/${segment(orgName)}/ca_certificates?limit=1`)).data[0].serial;
  const certificateSerial: string = (await ok(api, 'GET', `${scoped}/devices/${segment(device.identifier)}/certificates`)).data[0].serial;

  return {
    signingKey,
    productName,
    productPrn,
    referenceFields: ['firmware', 'firmware_uuid'],
    values: new Map([
      ['org_name', [orgName]],
      ['product_name', [productName]],
      ['identifier', [device.identifier]],
      ['deployment_name', [deploymentName]],
      ['uuid', [archive.uuid]],
      ['firmware', [firmwarePrn, archive.uuid]],
      ['firmware_uuid', [archive.uuid]],
      ['x-canopy-uuid', [archive.uuid]],
      ['ca_certificates/serial', [caSerial]],
      ['certificates/serial', [certificateSerial]],
    ]),
  };
}
