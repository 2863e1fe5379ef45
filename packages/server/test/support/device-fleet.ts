/**
 * Admin-side setup that device API tests repeat: register a CA with proof of possession, make a
 * product and devices, register device certificates. Each step goes through the real admin API.
 */
import { expect } from 'vitest';
import { makeRootCa, makeVerificationCertificate, toBase64Pem, type TestCertificate } from './certificates';
import { startTestServer, type Api, type TestServer } from './server';

export interface JitpBody {
  description: string;
  tags: string[];
  product_name: string;
  cohort_prn?: string | null;
  target?: string | null;
}

export async function verificationCode(api: Api): Promise<string> {
  const res = await api('POST', '/ca_certificates/verification_codes');
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.verification_code;
}

/** POST /ca_certificates with a fresh code; answers the raw response. */
export async function registerCa(api: Api, ca: TestCertificate, extra: { description?: string; jitp?: JitpBody | null } = {}) {
  const code = await verificationCode(api);
  const verification = await makeVerificationCertificate(ca, code);
  return api('POST', '/ca_certificates', { certificate: toBase64Pem(ca.certPem), verification_certificate: toBase64Pem(verification.certPem), ...extra });
}

/** Registers and answers the ca_certificate, failing the test otherwise. */
export async function registeredCa(api: Api, ca: TestCertificate, extra: { description?: string; jitp?: JitpBody | null } = {}) {
  const res = await registerCa(api, ca, extra);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.ca_certificate;
}

export async function createProduct(api: Api, name: string): Promise<string> {
  const res = await api('POST', '/products', { name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.product.prn;
}

export async function createDevice(api: Api, productPrn: string, identifier: string, extra: Record<string, unknown> = {}) {
  const res = await api('POST', '/devices', { identifier, product_prn: productPrn, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.device;
}

/** `chain`: the intermediates between the certificate and its registered CA, sent after it. */
export async function registerDeviceCertificate(api: Api, devicePrn: string, certificate: TestCertificate, ...chain: TestCertificate[]) {
  const pem = [certificate, ...chain].map((c) => c.certPem).join('');
  const res = await api('POST', '/device_certificates', { device_prn: devicePrn, certificate: toBase64Pem(pem) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.device_certificate;
}

/** Events of one organization, newest first, optionally of one subtype. */
export async function deviceEvents(api: Api, subtype?: string, resourcePrn?: string) {
  const query = new URLSearchParams({ limit: '100', type: 'device' });
  if (subtype) query.set('subtype', subtype);
  if (resourcePrn) query.set('resource_prn', resourcePrn);
  const res = await api('GET', `/events?${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.events as Array<{ prn: string; type: string; data: { type: string; data: Record<string, any> }; resource_prn: string | null; actor_prn: string | null }>;
}

/** A test server with a registered root CA and a product: where most device API test files start. */
export async function startEnrollmentServer(productName: string): Promise<{ t: TestServer; root: TestCertificate; productPrn: string }> {
  const t = await startTestServer();
  const root = await makeRootCa();
  await registeredCa(t.api, root);
  return { t, root, productPrn: await createProduct(t.api, productName) };
}
