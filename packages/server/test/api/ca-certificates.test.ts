import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeExpiredCertificate,
  makeLeafCertificate,
  makeRootCa,
  makeVerificationCertificate,
  toBase64Pem,
} from '../support/certificates';
import { createProduct, registerCa, registeredCa, verificationCode } from '../support/device-fleet';
import { expectFieldError } from '../support/resource-checks';
import { startTestServer, type TestServer } from '../support/server';

let t: TestServer;
let productName: string;
beforeAll(async () => {
  t = await startTestServer();
  productName = 'ca-tests';
  await createProduct(t.api, productName);
});
afterAll(async () => {
  await t?.close();
});

describe('CA verification codes', () => {
  it('hands out distinct codes and needs the admin role', async () => {
    const a = await verificationCode(t.api);
    const b = await verificationCode(t.api);
    expect(a).toMatch(/^[0-9A-F]{32}$/);
    expect(a).not.toBe(b);
    const writeKey = await t.keyWithRole('write');
    const refused = await t.api('POST', '/ca_certificates/verification_codes', undefined, { key: writeKey });
    expect(refused.status).toBe(403);
    expect((await t.api('GET', '/ca_certificates', undefined, { key: writeKey })).status).toBe(403);
  });
});

describe('CA certificates', () => {
  it('registers a CA with proof of possession and shows serial, validity and description', async () => {
    const ca = await makeRootCa();
    const registered = await registeredCa(t.api, ca, { description: 'factory line 1' });
    expect(registered).toMatchObject({
      serial: BigInt(`0x${ca.cert.serialNumber}`).toString(10),
      description: 'factory line 1',
      organization_prn: `prn:1:${t.organizationId}`,
      jitp: null,
    });
    expect(registered.prn).toMatch(/:ca_certificate:/);
    expect(new Date(registered.not_after).getTime()).toBe(new Date(ca.cert.validTo).getTime());
    expect(registered.not_before).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect((await t.api('GET', `/ca_certificates/${registered.prn}`)).body.ca_certificate).toEqual(registered);
    const listed = await t.api('GET', '/ca_certificates?limit=100');
    expect(listed.body.ca_certificates.map((c: any) => c.prn)).toContain(registered.prn);
  });

  it('refuses a code that was already used, and a CA registered twice', async () => {
    const ca = await makeRootCa();
    const code = await verificationCode(t.api);
    const verification = await makeVerificationCertificate(ca, code);
    const body = { certificate: toBase64Pem(ca.certPem), verification_certificate: toBase64Pem(verification.certPem) };
    expect((await t.api('POST', '/ca_certificates', body)).status).toBe(201);
    expectFieldError(await t.api('POST', '/ca_certificates', body), 'verification_certificate', 'verification_code_mismatch');
    expectFieldError(await registerCa(t.api, ca), 'certificate', 'taken');
  });

  it('names each failing proof-of-possession check', async () => {
    const ca = await makeRootCa();
    const other = await makeRootCa();
    // Verification certificate signed by another key.
    const code = await verificationCode(t.api);
    const forged = await makeVerificationCertificate(other, code);
    expectFieldError(
      await t.api('POST', '/ca_certificates', { certificate: toBase64Pem(ca.certPem), verification_certificate: toBase64Pem(forged.certPem) }),
      'verification_certificate',
      'verification_not_signed_by_ca',
    );
    // A CN that is no code of ours.
    const unknown = await makeVerificationCertificate(ca, 'NOT-A-CODE');
    expectFieldError(
      await t.api('POST', '/ca_certificates', { certificate: toBase64Pem(ca.certPem), verification_certificate: toBase64Pem(unknown.certPem) }),
      'verification_certificate',
      'verification_code_mismatch',
    );
    // Not a CA, and an expired CA.
    const leaf = await makeLeafCertificate(ca, 'just-a-device');
    expectFieldError(await registerCa(t.api, leaf), 'certificate', 'not_a_ca');
    const expired = await makeExpiredCertificate(null, 'Old CA', { isCa: true });
    expectFieldError(await registerCa(t.api, expired), 'certificate', 'ca_expired');
    // Not a certificate at all.
    const code2 = await verificationCode(t.api);
    const garbage = await t.api('POST', '/ca_certificates', { certificate: 'bm90IGEgY2VydA==', verification_certificate: toBase64Pem((await makeVerificationCertificate(ca, code2)).certPem) });
    expectFieldError(garbage, 'certificate', 'malformed');
    expectFieldError(await t.api('POST', '/ca_certificates', { certificate: toBase64Pem(ca.certPem) }), 'verification_certificate', 'required');
  });

  it('does not accept another organization\'s code', async () => {
    const other = await t.createOrganization();
    const ca = await makeRootCa();
    const theirCode = await verificationCode(other.api);
    const verification = await makeVerificationCertificate(ca, theirCode);
    const res = await t.api('POST', '/ca_certificates', { certificate: toBase64Pem(ca.certPem), verification_certificate: toBase64Pem(verification.certPem) });
    expectFieldError(res, 'verification_certificate', 'verification_code_mismatch');
  });

  it('stores JITP settings, checks the product and cohort, updates by PUT and PATCH, and deletes', async () => {
    const ca = await makeRootCa();
    expectFieldError(await registerCa(t.api, ca, { jitp: { description: 'x', tags: [], product_name: 'no-such-product' } }), 'jitp.product_name', 'not_found');
    const cohort = (await t.api('POST', '/cohorts', { name: 'jitp', product_prn: (await t.api('GET', '/products?limit=100')).body.products.find((p: any) => p.name === productName).prn })).body.cohort;
    const jitp = { description: 'provisioned', tags: ['jitp'], product_name: productName, cohort_prn: cohort.prn, target: 'aarch64-unknown-linux-gnu' };
    const registered = await registeredCa(t.api, ca, { jitp });
    expect(registered.jitp).toEqual(jitp);

    const put = await t.api('PUT', `/ca_certificates/${registered.prn}`, { description: 'renamed' });
    expect(put.status).toBe(200);
    expect(put.body.ca_certificate).toMatchObject({ description: 'renamed', jitp });
    const patched = await t.api('PATCH', `/ca_certificates/${registered.prn}`, { jitp: null, prn: registered.prn });
    expect(patched.body.ca_certificate).toMatchObject({ description: 'renamed', jitp: null });
    expectFieldError(await t.api('PATCH', `/ca_certificates/${registered.prn}`, { jitp: { description: 'x', tags: [] } }), 'jitp.product_name', 'required');

    const other = await t.createOrganization();
    expect((await other.api('GET', `/ca_certificates/${registered.prn}`)).status).toBe(404);
    expect((await other.api('DELETE', `/ca_certificates/${registered.prn}`)).status).toBe(404);
    expect((await t.api('DELETE', `/ca_certificates/${registered.prn}`)).status).toBe(204);
    expect((await t.api('GET', `/ca_certificates/${registered.prn}`)).status).toBe(404);
  });
});
