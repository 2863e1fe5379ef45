/**
 * The admin audit trail, walked from the route table: every write route (POST, PUT, PATCH,
 * DELETE) is audited or exempt with a reason; each audited one, called successfully, leaves
 * exactly one `audit` event naming the operation, the actor (user and API key), the resource and
 * the body's fields with secrets redacted; a refused write leaves none and changes nothing (the
 * change and its event share one transaction); GET /events filters them by actor, API key,
 * resource and subtype; another organization never sees them. A new write route is walked
 * without a line here, and a route the walk cannot call successfully fails it until a call is
 * added to CALLS.
 */
import { signBundle } from '@canopy/sdk/bundle-signing';
import fc from 'fast-check';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_SUBTYPES } from '../../src/events/audit-entry';
import { writeRoutesOf } from '../../src/events/audit-trail';
import { operationsOf, type Operation } from '../support/fuzz/operations';
import { exampleValue, validValue, type ValueContext } from '../support/fuzz/schema-arbitrary';
import { serialize } from '../support/fuzz/values';
import { createArtifactVersion, ed25519Keypair, sha256, signHash, uploadedBinary } from '../support/binaries';
import { makeLeafCertificate, makeRootCa, makeVerificationCertificate, toBase64Pem } from '../support/certificates';
import { registeredCa } from '../support/device-fleet';
import { pendingReclaim } from '../support/claims';
import { createFleet } from '../support/fleet';
import { legacyOrg } from '../support/legacy';
import { populateOrganization, type PopulatedOrganization } from '../support/populated-organization';
import { pathParameterTypes } from '../support/route-resources';
import { AUDITED_IN_TUF_TEST } from '../support/audited-elsewhere';
import { startTestServer, type Api, type TestServer } from '../support/server';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

/** Write routes that answer without an API key, or write nothing; each is a hole in the trail, so keep it small. */
const EXPECTED_EXEMPT = ['POST /users/auth', 'PUT /part_uploads/{id}', 'POST /releases/dry_run'];

/**
 * The legacy API names resources by organization and product names, serials, identifiers and
 * uuids, and uploads firmware as multipart: the generated calls below build prn paths and JSON
 * bodies only. Their audit events come from the same wrapper (the first test shows they are
 * audited); 'audits a legacy write by name too' below checks one, its resource named by path.
 */
const LEGACY_PATH = /^\/(orgs|firmwares|deployments)(\/|$)/;

let t: TestServer;
let receiver: Receiver;
let mine: PopulatedOrganization;
let operations: Operation[];

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ webhookAllowPrivate: true, webhookCaFiles: [receiver.caFile], webhookTimeoutMs: 2_000 });
  operations = operationsOf(t.server.admin.swagger());
  const listPaths = operations.filter((o) => o.method === 'GET' && !o.path.includes('{') && !o.streams).map((o) => o.path);
  mine = await populateOrganization(t, { organizationId: t.organizationId, name: t.organizationName, api: t.api }, listPaths, receiver.url);
}, 300_000);
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const label = (o: { method: string; path: string }) => `${o.method} ${o.path}`;

function firstOf(organization: PopulatedOrganization, wanted: string): string {
  if (wanted === 'index') return '1';
  const type = [...organization.prnsByType.keys()].filter((known) => wanted === known || wanted.endsWith(`_${known}`)).sort((a, b) => b.length - a.length)[0] ?? wanted;
  const prn = organization.prnsByType.get(type)?.[0];
  if (!prn) throw new Error(`the populated organization has no ${type}`);
  return prn;
}

function pathWith(operation: Operation, owner: PopulatedOrganization): string {
  let path = operation.path;
  for (const [name, type] of pathParameterTypes(operation.path)) path = path.replace(`{${name}}`, encodeURIComponent(firstOf(owner, type)));
  return path;
}

function candidateBodies(operation: Operation, caller: PopulatedOrganization): unknown[] {
  if (!operation.body) return [undefined];
  const context: ValueContext = { prnsByType: caller.prnsByType, organizationIds: [caller.organizationId] };
  return [{}, exampleValue(operation.body), ...fc.sample(validValue(operation.body, context), { numRuns: 60, seed: 5 })];
}

async function newestAudit(api: Api) {
  const res = await api('GET', '/events?type=audit&limit=1');
  expect(res.status).toBe(200);
  return res.body.events[0] ?? null;
}

interface Call {
  path: string;
  body?: unknown;
  /** Another key of the same user (a session), for a route that acts on the calling key itself. */
  key?: string;
}
const created = async (api: Api, path: string, body: unknown, key: string): Promise<string> => {
  const res = await api('POST', path, body);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
  return res.body[key].prn;
};

/** A new session of the bootstrap admin (the user t.api's key acts as), and its prn. */
async function adminSession(api: Api): Promise<{ token: string; prn: string }> {
  const { username, password } = t.server.bootstrap!;
  const res = await api('POST', '/users/auth', { username, password }, { key: null });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const token = res.body.data.token as string;
  const sessions = (await api('GET', '/users/me/sessions', undefined, { key: token })).body.sessions as { prn: string; current: boolean }[];
  return { token, prn: sessions.find((s) => s.current)!.prn };
}

/** A device of a newly registered CA and a certificate for it, not yet registered. */
async function deviceAndCertificate(api: Api) {
  const ca = await makeRootCa();
  await registeredCa(api, ca);
  const productPrn = await created(api, '/products', { name: `audit-${randomUUID().slice(0, 8)}` }, 'product');
  const devicePrn = await created(api, '/devices', { identifier: `audit-${randomUUID()}`, product_prn: productPrn }, 'device');
  return { devicePrn, certificate: toBase64Pem((await makeLeafCertificate(ca, `audit-${randomUUID()}`)).certPem) };
}

/** A signable binary and a signing key with a valid signature of it, not yet recorded. */
async function signableBinary(api: Api) {
  const keypair = ed25519Keypair();
  const keyPrn = await created(api, '/signing_keys', { name: `audit-${randomUUID().slice(0, 8)}`, value: keypair.value }, 'signing_key');
  const { prn, binary } = await uploadedBinary(api, randomBytes(512), { until: 'signable' });
  return { binary_prn: prn, signing_key_prn: keyPrn, signature: signHash(keypair.privateKey, binary.hash) };
}

/** A new bundle of one verified binary and a valid signature of it by a new key. */
async function signableBundle(api: Api) {
  const keypair = ed25519Keypair();
  const keyPrn = await created(api, '/signing_keys', { name: `audit-${randomUUID().slice(0, 8)}`, value: keypair.value }, 'signing_key');
  const { prn, versionPrn, binary } = await uploadedBinary(api, randomBytes(512), { until: 'signable' });
  const bundlePrn = await created(api, '/bundles', { artifact_version_prns: [versionPrn] }, 'bundle');
  const signature = signBundle(keypair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), bundlePrn, [{ binary_prn: prn, target: binary.target, size: binary.size, hash: binary.hash }]);
  return { bundle_prn: bundlePrn, signing_key_prn: keyPrn, signature };
}

/**
 * Calls the generated bodies cannot make succeed (proofs of possession, signatures, a resource
 * in the one state the route accepts, or one nothing else uses so it can be deleted): each sets
 * up what it needs and answers the path and body to send. The caller's own user and key are
 * never the ones deleted.
 */
const CALLS: Record<string, (api: Api, org: PopulatedOrganization) => Promise<Call>> = {
  // The organization's enrolled device fails a release that boxes at the first failure.
  'DELETE /releases/{prn}/penalty_box/{device_prn}': async (api, org) => {
    const productPrn = (await api('GET', `/devices/${org.device.prn}`)).body.device.product_prn;
    const cohort = await created(api, '/cohorts', { name: `boxed-${randomUUID().slice(0, 8)}`, product_prn: productPrn }, 'cohort');
    expect((await api('PATCH', `/devices/${org.device.prn}`, { cohort_prn: cohort })).status).toBe(200);
    const version = await createArtifactVersion(api);
    const bundle = await created(api, '/bundles', { name: `boxed-${randomUUID().slice(0, 8)}`, artifact_version_prns: [version.prn] }, 'bundle');
    const penalty = { failures: 1, window_seconds: null, rest_seconds: 600 };
    const release = await created(api, '/releases', { name: 'boxed', bundle_prn: bundle, cohort_prn: cohort, required: false, schedule_date: null, penalty_box: penalty }, 'release');
    expect((await org.device.api('POST', '/update/reports', { status: 'failed', release_prn: release, bundle_prn: bundle, reason: 'boom' })).status).toBe(201);
    return { path: `/releases/${release}/penalty_box/${org.device.prn}` };
  },
  'DELETE /api_keys/{prn}': async (api) => ({ path: `/api_keys/${await created(api, '/api_keys', { name: 'to revoke', role: 'read' }, 'api_key')}` }),
  'DELETE /users/me/session': async (api) => ({ path: '/users/me/session', key: (await adminSession(api)).token }),
  'DELETE /users/me/sessions/{prn}': async (api) => ({ path: `/users/me/sessions/${(await adminSession(api)).prn}` }),
  'DELETE /users/{prn}/sessions/{session_prn}': async (api) => ({ path: `/users/${(await api('GET', '/users/me')).body.data.prn}/sessions/${(await adminSession(api)).prn}` }),
  'DELETE /users/{prn}': async (api) => ({ path: `/users/${await created(api, '/users', { username: `gone-${randomUUID().slice(0, 8)}`, password: 'long enough password' }, 'user')}` }),
  'POST /ca_certificates': async (api) => {
    const ca = await makeRootCa();
    const code = (await api('POST', '/ca_certificates/verification_codes')).body.verification_code;
    const proof = await makeVerificationCertificate(ca, code);
    return { path: '/ca_certificates', body: { certificate: toBase64Pem(ca.certPem), verification_certificate: toBase64Pem(proof.certPem), description: 'audited' } };
  },
  'POST /device_certificates': async (api) => {
    const { devicePrn, certificate } = await deviceAndCertificate(api);
    return { path: '/device_certificates', body: { device_prn: devicePrn, certificate } };
  },
  'DELETE /device_certificates/{prn}': async (api) => {
    const { devicePrn, certificate } = await deviceAndCertificate(api);
    return { path: `/device_certificates/${await created(api, '/device_certificates', { device_prn: devicePrn, certificate }, 'device_certificate')}` };
  },
  'POST /binary_signatures': async (api) => ({ path: '/binary_signatures', body: await signableBinary(api) }),
  'DELETE /binary_signatures/{prn}': async (api) => ({ path: `/binary_signatures/${await created(api, '/binary_signatures', await signableBinary(api), 'binary_signature')}` }),
  'POST /device_reclaims/{prn}/approve': async (api, org) => ({ path: `/device_reclaims/${await pendingReclaim(t, api, firstOf(org, 'product'))}/approve` }),
  'POST /device_reclaims/{prn}/reject': async (api, org) => ({ path: `/device_reclaims/${await pendingReclaim(t, api, firstOf(org, 'product'))}/reject` }),
  'DELETE /bundle_overrides/{prn}/devices/{device_prn}': async (api, org) => {
    const device = await created(api, '/devices', { identifier: `audit-${randomUUID().slice(0, 8)}`, product_prn: firstOf(org, 'product') }, 'device');
    const window = { starts_at: new Date(Date.now() - 60_000).toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString() };
    const override = await created(api, '/bundle_overrides', { name: 'audited', bundle_prn: firstOf(org, 'bundle'), ...window }, 'bundle_override');
    await api('POST', `/bundle_overrides/${override}/devices`, { device_prn: device });
    return { path: `/bundle_overrides/${override}/devices/${device}` };
  },
  'POST /claim_tokens': async (_, org) => ({ path: '/claim_tokens', body: { max_uses: 2, expires_at: new Date(Date.now() + 86_400_000).toISOString(), product_prn: firstOf(org, 'product') } }),
  'POST /bundle_signatures': async (api) => ({ path: '/bundle_signatures', body: await signableBundle(api) }),
  'DELETE /bundle_signatures/{prn}': async (api) => ({ path: `/bundle_signatures/${await created(api, '/bundle_signatures', await signableBundle(api), 'bundle_signature')}` }),
  'POST /releases': async (_, org) => ({ path: '/releases', body: { bundle_prn: firstOf(org, 'bundle'), cohort_prn: firstOf(org, 'cohort'), name: 'audited', required: false, schedule_date: null } }),
  'POST /releases/{prn}/revert': async (api, org) => {
    const next = await created(api, '/releases', { bundle_prn: firstOf(org, 'bundle'), cohort_prn: firstOf(org, 'cohort'), name: 'to revert', required: false, schedule_date: null }, 'release');
    return { path: `/releases/${next}/revert`, body: { name: 'reverted' } };
  },
  'PUT /binaries/{prn}/parts/{index}': async (api) => {
    const bytes = randomBytes(256);
    const binary = await created(api, '/binaries', { artifact_version_prn: (await createArtifactVersion(api)).prn, hash: sha256(bytes), size: bytes.length, target: 'x86_64-linux' }, 'binary');
    return { path: `/binaries/${binary}/parts/1`, body: { expected_binary_size: bytes.length, hash: sha256(bytes), size: bytes.length } };
  },
  'DELETE /artifacts/{prn}': async (api) => ({ path: `/artifacts/${await created(api, '/artifacts', { name: `audit-${randomUUID().slice(0, 8)}` }, 'artifact')}` }),
  'DELETE /artifact_versions/{prn}': async (api) => ({ path: `/artifact_versions/${(await createArtifactVersion(api, '9.9.9')).prn}` }),
  'DELETE /bundles/{prn}': async (api) => ({ path: `/bundles/${(await (await createFleet(api)).bundle({ signed: false })).prn}` }),
};

const SECRET_VALUES = /correct horse|long enough password|cnpy_|whsec_/;

describe('audit trail', () => {
  it('audits every write route of the route table, or exempts it with a reason', () => {
    const routes = writeRoutesOf(t.server.admin);
    expect(routes.length).toBeGreaterThan(60);
    const exempt = routes.filter((r) => !r.audited);
    expect(exempt.map((r) => r.operation).sort()).toEqual([...EXPECTED_EXEMPT].sort());
    for (const route of exempt) expect(route.exemption, route.operation).toBeTruthy();
  });

  it('records one event per successful admin write: operation, actor, key, resource, changes without secrets', async () => {
    const audited = new Set(writeRoutesOf(t.server.admin).filter((r) => r.audited).map((r) => r.operation));
    const rank: Record<string, number> = { POST: 0, PUT: 1, PATCH: 1, DELETE: 2 };
    // Deletes last, a member of a sub-collection before its parent (longer paths first).
    const walk = operations
      .filter((o) => audited.has(label(o)) && !LEGACY_PATH.test(o.path) && !AUDITED_IN_TUF_TEST.includes(label(o)))
      .sort((a, b) => rank[a.method] - rank[b.method] || (a.method === 'DELETE' ? b.path.length - a.path.length : 0));
    const unreached: string[] = [];
    const wrong: string[] = [];
    const me = await t.api('GET', '/users/me');
    for (const operation of walk) {
      const call = CALLS[label(operation)] ? await CALLS[label(operation)](t.api, mine) : null;
      const path = call ? call.path.split('/').map((s) => (s.startsWith('prn:') ? encodeURIComponent(s) : s)).join('/') : pathWith(operation, mine);
      const before = await newestAudit(t.api);
      let res;
      let sent: unknown;
      for (const body of call ? [call.body] : candidateBodies(operation, mine)) {
        sent = body;
        const key = call?.key ? { key: call.key } : {};
        res = await t.api(operation.method, path, undefined, body === undefined ? key : { ...key, raw: serialize(body), headers: { 'content-type': 'application/json' } });
        if (res.status < 300) break;
        // A refused write leaves no audit event.
        const after = await newestAudit(t.api);
        if (after?.prn !== before?.prn) wrong.push(`${label(operation)}: ${res.status} and still an audit event`);
      }
      if (!res || res.status >= 300) {
        unreached.push(`${label(operation)}: ${res?.status} ${JSON.stringify(res?.body).slice(0, 160)}`);
        continue;
      }
      const event = await newestAudit(t.api);
      const data = event?.data?.data ?? {};
      const problems: string[] = [];
      if (!event || event.prn === before?.prn) problems.push('no audit event');
      else {
        if (data.operation !== label(operation)) problems.push(`operation ${data.operation}`);
        if (!(AUDIT_SUBTYPES as readonly string[]).includes(event.data.type)) problems.push(`subtype ${event.data.type} is not in the event catalogue's audit subtypes (packages/sdk/src/event-catalogue.ts; GET /events could not filter by it)`);
        if (event.actor_prn !== me.body.data.prn) problems.push(`actor ${event.actor_prn}`);
        if (data.user_prn !== me.body.data.prn || !String(data.api_key_prn).includes(':api_key:')) problems.push(`user ${data.user_prn} key ${data.api_key_prn}`);
        const pathPrn = [...pathParameterTypes(operation.path).keys()].map((name) => decodeURIComponent(path.split('/')[operation.path.split('/').indexOf(`{${name}}`)])).find((v) => v.startsWith('prn:'));
        const answerPrn = res.body && Object.values(res.body).find((v: any) => v && typeof v === 'object' && typeof v.prn === 'string') as { prn: string } | undefined;
        const expectedResource = pathPrn ?? answerPrn?.prn;
        if (expectedResource && event.resource_prn !== expectedResource) problems.push(`resource ${event.resource_prn}, expected ${expectedResource}`);
        if (SECRET_VALUES.test(JSON.stringify(event))) problems.push('a secret in the event');
        // Every field the body set is named in changes (secrets by name, their values redacted).
        if (sent && typeof sent === 'object' && operation.method !== 'DELETE') {
          for (const field of Object.keys(sent as object)) if (!(field in (data.changes ?? {}))) problems.push(`changes lack ${field}`);
        }
      }
      if (problems.length > 0) wrong.push(`${label(operation)}: ${problems.join('; ')}`);
    }
    expect(wrong).toEqual([]);
    expect(unreached, 'audited write routes the walk could not call successfully: add a call').toEqual([]);
    expect(walk.length).toBeGreaterThan(45);
  }, 600_000);

  it('audits a legacy write by name too, filters by actor, key, resource and subtype, and keeps organizations apart', async () => {
    const org = await legacyOrg(t, 'audited-legacy');
    const created = await org.api('POST', `/orgs/${org.name}/products/audited-legacy/devices`, { identifier: 'legacy-1', description: 'first' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const removed = await org.api('DELETE', `/orgs/${org.name}/products/audited-legacy/devices/legacy-1`);
    expect(removed.status).toBe(204);
    const events = (await org.api('GET', '/events?type=audit&limit=10')).body.events;
    const [deletion, creation] = events;
    expect(deletion.data).toMatchObject({ type: 'deleted', data: { operation: 'DELETE /orgs/{org_name}/products/{product_name}/devices/{identifier}', resource_type: 'device', path: { org_name: org.name, identifier: 'legacy-1' }, changes: null } });
    expect(creation.data).toMatchObject({ type: 'created', data: { resource_type: 'device', changes: { identifier: 'legacy-1', description: 'first' } } });
    // Filters: by the acting key (also when events name a user), by resource, by subtype.
    const keyPrn = creation.data.data.api_key_prn;
    const byKey = (await org.api('GET', `/events?type=audit&actor_prn=${encodeURIComponent(keyPrn)}`)).body.events.map((e: { prn: string }) => e.prn);
    expect(byKey).toEqual(expect.arrayContaining([deletion.prn, creation.prn]));
    const bySubtype = (await org.api('GET', '/events?type=audit&subtype=deleted')).body.events;
    expect(bySubtype.map((e: { prn: string }) => e.prn)).toEqual([deletion.prn]);
    // Another organization sees none of them, even by naming the key.
    const mineByKey = (await t.api('GET', `/events?type=audit&actor_prn=${encodeURIComponent(keyPrn)}`)).body.events;
    expect(mineByKey).toEqual([]);
    const resourcePrn = creation.resource_prn;
    if (resourcePrn) expect((await t.api('GET', `/events?resource_prn=${encodeURIComponent(resourcePrn)}`)).body.events).toEqual([]);
  });

  it('records nothing for a refused write, and rolls back what a failing handler wrote', async () => {
    const before = await newestAudit(t.api);
    // 422 from the handler (a name taken) after validation passed.
    const name = `taken-${randomUUID().slice(0, 8)}`;
    expect((await t.api('POST', '/products', { name })).status).toBe(201);
    const afterCreate = await newestAudit(t.api);
    expect(afterCreate.prn).not.toBe(before?.prn);
    expect((await t.api('POST', '/products', { name })).status).toBe(422);
    expect((await newestAudit(t.api)).prn).toBe(afterCreate.prn);
    // A release create refused late (after its own writes began) leaves neither the release nor an event.
    const releasesBefore = (await t.api('GET', '/releases?limit=100')).body.releases.length;
    const refused = await t.api('POST', '/releases', { bundle_prn: firstOf(mine, 'bundle'), cohort_prn: firstOf(mine, 'cohort'), name: 'x', required: false, schedule_date: null, next_release_prn: firstOf(mine, 'bundle') });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect((await t.api('GET', '/releases?limit=100')).body.releases.length).toBe(releasesBefore);
    expect((await newestAudit(t.api)).prn).toBe(afterCreate.prn);
  });
});

