/**
 * The update check's answers match their published schemas exactly: real answers, with every
 * expansion, validated against the OpenAPI document's response schema made strict (no property
 * the schema does not name). `GET /update` is written with JSON.stringify, so a field added to
 * answers.ts without a schema would reach devices undocumented; this test refuses it.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminOpenApi, deviceOpenApi } from '../../src/openapi/write';
import { UPDATE_EXPANSIONS } from '../../src/updates/answers';
import { makeLeafCertificate, makeRootCa, type TestCertificate } from '../support/certificates';
import { deviceRequest } from '../support/device-client';
import { registerDeviceCertificate, registeredCa } from '../support/device-fleet';
import { useFleet } from '../support/fleet';
import { useTestServer } from '../support/server';

const t = useTestServer();
const fleet = useFleet(t);

/** A copy of `schema` in which every object schema refuses properties it does not name (also one that says `additionalProperties: true`). */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // Property names and examples are data, not schemas.
    copy[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([name, s]) => [name, strict(s)])) : key === 'examples' ? value : strict(value);
  }
  if ('properties' in copy) copy.additionalProperties = false;
  return copy;
}

type Document = { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: unknown }> }> }>> };
function answerValidator(document: unknown, path: string, method: string): ValidateFunction {
  const ajv = new Ajv({ strict: true, allErrors: true });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv.compile(strict((document as Document).paths[path][method].responses['200'].content['application/json'].schema) as object);
}

let root: TestCertificate;
let validDeviceAnswer: ValidateFunction;
let validAdminAnswer: ValidateFunction;
beforeAll(async () => {
  root = await makeRootCa();
  await registeredCa(t.api, root);
  validDeviceAnswer = answerValidator(await deviceOpenApi(), '/update', 'get');
  validAdminAnswer = answerValidator(await adminOpenApi(), '/devices/{prn}/update', 'post');
});

async function certifiedDevice(cohortId: string | null) {
  const device = await fleet.device({ cohortId });
  const certificate = await makeLeafCertificate(root, `dev-${device.id.slice(0, 8)}`);
  await registerDeviceCertificate(t.api, device.prn, certificate);
  return { device, certificate };
}

async function release(cohortPrn: string, bundlePrn: string, version: string) {
  const res = await t.api('POST', '/releases', { bundle_prn: bundlePrn, cohort_prn: cohortPrn, name: 'r', required: false, schedule_date: null, version });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.release;
}

/** `GET /update` with every expansion; the answer must carry each one and match the schema. */
async function checkEverything(certificate: TestCertificate, headers: Record<string, string>) {
  const res = await deviceRequest(t, `/update?expand=${UPDATE_EXPANSIONS.join(',')}`, { credentials: certificate, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['status', ...UPDATE_EXPANSIONS].sort());
  expect(validDeviceAnswer(res.body), JSON.stringify(validDeviceAnswer.errors)).toBe(true);
  return res.body;
}

function expectAdminAnswerValid(body: unknown) {
  expect(validAdminAnswer(body), JSON.stringify(validAdminAnswer.errors)).toBe(true);
}

describe('the update answers and their schemas', () => {
  it('a release offered with every expansion matches the device and admin schemas', async () => {
    const cohort = await fleet.cohort();
    const [b1, b2] = [await fleet.bundle(), await fleet.bundle()];
    const r1 = await release(cohort.prn, b1.prn, '1.0.0');
    const r2 = await release(cohort.prn, b2.prn, '1.1.0');
    const { device, certificate } = await certifiedDevice(cohort.id);

    const answer = await checkEverything(certificate, { 'canopy-release-prn': r1.prn });
    expect(answer).toMatchObject({ status: 'update', source_type: 'release', release: { prn: r2.prn }, bundle: { prn: b2.prn }, bundle_override: null, cohort: { prn: cohort.prn } });
    expect(answer.manifest).toEqual([expect.objectContaining({ binary_prn: b2.binaryPrn, hash: b2.hash, signatures: [expect.objectContaining({ signing_key_prn: b2.signingKeyPrn })] })]);
    // The strict schema is not vacuous: one field it does not name, at any depth, fails it.
    expect(validDeviceAnswer({ ...answer, surprise: 1 })).toBe(false);
    expect(validDeviceAnswer({ ...answer, release: { ...answer.release, surprise: 1 } })).toBe(false);
    expect(validDeviceAnswer({ ...answer, manifest: [{ ...answer.manifest[0], artifact: { ...answer.manifest[0].artifact, surprise: 1 } }] })).toBe(false);

    const admin = await t.api('POST', `/devices/${device.prn}/update`, { release_prn: r1.prn });
    expect(admin.body).toMatchObject({ status: 'update', source_prn: r2.prn });
    expectAdminAnswerValid(admin.body);
  });

  it('a bundle override offered with every expansion matches the schema', async () => {
    const cohort = await fleet.cohort();
    const [b1, b2] = [await fleet.bundle(), await fleet.bundle()];
    await release(cohort.prn, b1.prn, '1.0.0');
    const { device, certificate } = await certifiedDevice(cohort.id);
    const override = (
      await t.api('POST', '/bundle_overrides', { name: 'hotfix', bundle_prn: b2.prn, starts_at: new Date(Date.now() - 60_000).toISOString(), ends_at: null })
    ).body.bundle_override;
    expect((await t.api('POST', `/bundle_overrides/${override.prn}/devices`, { device_prn: device.prn })).status).toBe(201);

    const answer = await checkEverything(certificate, { 'canopy-release-version': '1.0.0' });
    expect(answer).toMatchObject({ status: 'update', source_type: 'bundle_override', release: null, bundle: { prn: b2.prn }, bundle_override: { prn: override.prn, ends_at: null } });
    expectAdminAnswerValid((await t.api('POST', `/devices/${device.prn}/update`, { release_version: '1.0.0' })).body);
  });

  it('no update, outside any cohort: every expansion null, and the schema allows it', async () => {
    const { device, certificate } = await certifiedDevice(null);
    const answer = await checkEverything(certificate, {});
    expect(answer).toEqual({ status: 'no_update', source_type: null, release: null, bundle: null, bundle_override: null, cohort: null, manifest: null });
    expectAdminAnswerValid((await t.api('POST', `/devices/${device.prn}/update`, { release_version: '1.0.0' })).body);
  });
});
