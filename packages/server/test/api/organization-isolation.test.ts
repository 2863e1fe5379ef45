/**
 * The organization-isolation matrix, generated from the routes both servers describe: two
 * organizations each with one of every resource; for every route that names a resource in its
 * path, the other organization's prn (or token, or, on the legacy API, its organization or product
 * name, device identifier, serial, firmware uuid or deployment name: support/legacy-population.ts)
 * answers 404 and leaves the resource as it was, also when the other path parameters are the
 * caller's own; no answer of the caller's own lists and reads carries the other organization's
 * prns or names, also when a query filter or header names one; every create that references a
 * resource (a JSON field or a multipart form field) refuses the other organization's. The admin
 * API's cases run with a current key and a legacy key. A route that fits none of these must be in
 * EXEMPT with its reason, so a new route cannot go unchecked.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationsOf, type Operation } from '../support/fuzz/operations';
import { exampleValue, validValue, type ValueContext } from '../support/fuzz/schema-arbitrary';
import { serialize } from '../support/fuzz/values';
import { populateOrganization, type PopulatedOrganization } from '../support/populated-organization';
import { multipartBody } from '../support/multipart';
import { archiveFor } from '../support/legacy';
import { namedValues, pathParameterTypes } from '../support/route-resources';
import { startTestServer, type Api, type TestServer } from '../support/server';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

/** Routes that name no resource of an organization, with why. Keep small: each is a hole in the matrix. */
const EXEMPT: Record<string, string> = {
  'GET /healthz': 'public, answers no data',
  'POST /users/auth': 'public log-in; answers only the user whose password was given',
  'GET /users/me': 'answers the caller itself',
  'DELETE /users/me/session': "ends the caller's own session; names no resource",
  'POST /users': 'creates in the caller organization; references nothing',
  'POST /api_keys': 'creates in the caller organization; references nothing',
  'POST /products': 'creates in the caller organization; references nothing',
  'POST /artifacts': 'creates in the caller organization; references nothing',
  'GET /web-console/shells/{token}': 'public one-time url: the token is the credential, like a signed download url',
  'POST /signing_keys': 'creates in the caller organization; references nothing',
  'POST /webhooks': 'creates in the caller organization; references nothing',
  'POST /ca_certificates/verification_codes': 'creates in the caller organization; references nothing',
  'POST /ca_certificates': 'registers a CA for the caller; the same CA in two organizations is refused by ca-certificates.test.ts',
  'GET /events/stream': 'a Server-Sent Events stream that never ends; its isolation (no other organization\'s events, their ids 404) is tested in events-stream.test.ts',
  'device GET /device/me': 'answers the calling device itself',
  'device POST /device/claim': 'public: the claim token is the credential and names its organization; claim-enrolment.test.ts checks a token enrols into its own organization only',
  'POST /tuf/online_keys': "acts on the caller organization's own TUF repository; names no resource",
  'PUT /tuf/root': "acts on the caller organization's own TUF repository; names no resource",
  'POST /tuf/root_proposals': "acts on the caller organization's own TUF repository; names no resource",
  'GET /tuf/root_proposals/{version}': "a root version of the caller organization's own TUF repository, not a resource prn; tuf.test.ts checks another organization gets 404",
  'PUT /tuf/root_proposals/{version}/signatures': "a root version of the caller organization's own TUF repository, not a resource prn; tuf.test.ts checks another organization gets 404",
  'POST /tuf/root_proposals/{version}/commit': "a root version of the caller organization's own TUF repository, not a resource prn; tuf.test.ts checks another organization gets 404",
  'PUT /tuf/metadata/{role}': "a role of the caller organization's own TUF repository, not a resource prn; tuf.test.ts checks its signatures are checked against that organization's keys",
  'GET /tuf/metadata/{file}': "a metadata file of the caller organization's own TUF repository; tuf.test.ts checks another organization gets 404",
  'device GET /tuf/{file}': "a metadata file of the calling device's organization's TUF repository; tuf.test.ts checks a device of another organization gets 404",
  'device GET /update': 'answers for the calling device; position headers naming another organization are checked by update-check.test.ts',
};

let t: TestServer;
let receiver: Receiver;
let mine: PopulatedOrganization;
let theirs: PopulatedOrganization;
let adminOperations: Operation[];
let deviceOperations: Operation[];
let adminReads: Set<string>;
/** The caller's admin API, with its current key and with a legacy key. */
const callers: { kind: 'current' | 'legacy'; api: Api }[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ webhookAllowPrivate: true, webhookCaFiles: [receiver.caFile], webhookTimeoutMs: 2_000 });
  adminOperations = operationsOf(t.server.admin.swagger());
  deviceOperations = operationsOf((t.server.device.app as unknown as { swagger(): unknown }).swagger());
  adminReads = new Set(adminOperations.filter((o) => o.method === 'GET').map((o) => o.path));
  const listPaths = adminOperations.filter((o) => o.method === 'GET' && !o.path.includes('{') && !o.streams).map((o) => o.path);
  mine = await populateOrganization(t, { organizationId: t.organizationId, name: t.organizationName, api: t.api }, listPaths, receiver.url);
  theirs = await populateOrganization(t, await t.createOrganization(), listPaths, receiver.url);
  const legacyKey = await theirs.api('POST', '/api_keys', { name: 'legacy caller', role: 'admin', kind: 'legacy' });
  expect(legacyKey.status).toBe(201);
  callers.push({ kind: 'current', api: theirs.api }, { kind: 'legacy', api: (method, path, body, options = {}) => theirs.api(method, path, body, { ...options, key: legacyKey.body.api_key.key }) });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const label = (o: Operation, server: 'admin' | 'device') => `${server === 'device' ? 'device ' : ''}${o.method} ${o.path}`;
const allPrns = (organization: PopulatedOrganization) => new Set([...organization.prnsByType.values()].flat());
/** Every prn and legacy name, serial and uuid of the organization: none may reach the other one. */
const markersOf = (organization: PopulatedOrganization) => new Set([...allPrns(organization), ...[...organization.legacy.values.values()].flat()]);
const endsWithParameter = (path: string) => /\}$/.test(path);
/**
 * The operations a caller's key kind is checked on: a current key on every route, a legacy key on
 * the legacy API's (tagged `legacy ...`), the paths legacy clients call; elsewhere the key kind
 * changes nothing in how an organization is looked up (http/auth.ts).
 */
const forKind = (kind: 'current' | 'legacy') => (o: Operation) => kind === 'current' || o.tags.some((tag) => tag.startsWith('legacy'));

function firstOf(organization: PopulatedOrganization, wanted: string): string {
  if (wanted === 'token') return organization.shellToken;
  if (wanted === 'index') return '1';
  // `next_release` names a release: the longest known type the name ends with.
  const type = [...organization.prnsByType.keys()].filter((known) => wanted === known || wanted.endsWith(`_${known}`)).sort((a, b) => b.length - a.length)[0] ?? wanted;
  const prn = organization.prnsByType.get(type)?.[0];
  if (!prn) throw new Error(`the populated organization has no ${type}`);
  return prn;
}

/** The values naming the organization's resource in a path parameter: its legacy names (all forms), else its prn. */
function valuesOf(organization: PopulatedOrganization, path: string, name: string): string[] {
  return namedValues(organization.legacy.values, path, name) ?? [firstOf(organization, pathParameterTypes(path).get(name) ?? name)];
}

function filled(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name]));
}

const ownValues = (path: string, organization: PopulatedOrganization) => Object.fromEntries([...pathParameterTypes(path).keys()].map((name) => [name, valuesOf(organization, path, name)[0]]));

/**
 * Paths naming the owner's resource: every parameter the owner's (each form of a legacy name),
 * then, for paths of several parameters, the caller's own values with one parameter the owner's.
 */
function foreignPaths(path: string, owner: PopulatedOrganization, caller: PopulatedOrganization): string[] {
  const names = [...pathParameterTypes(path).keys()];
  const owners = ownValues(path, owner);
  const callers = ownValues(path, caller);
  const paths = new Set([filled(path, owners)]);
  for (const name of names) {
    for (const value of valuesOf(owner, path, name)) {
      paths.add(filled(path, { ...owners, [name]: value }));
      // A value both share (`{index}`) names nothing foreign once the rest is the caller's.
      if (names.length > 1 && value !== callers[name]) paths.add(filled(path, { ...callers, [name]: value }));
    }
  }
  return [...paths];
}

type Payload = { raw: string | Uint8Array; contentType: string } | undefined;

/** A firmware upload form: an archive signed by `signer` for `productName`, with the given text fields. */
function uploadForm(signer: PopulatedOrganization, productName: string, fields: Record<string, string> = {}): Payload {
  const form = multipartBody([...Object.entries(fields).map(([name, value]) => ({ name, value })), { name: 'firmware', file: archiveFor(signer.legacy, productName).bytes }]);
  return { raw: form.body, contentType: form.contentType };
}

/**
 * Bodies the caller could send itself: `{}`, the schema's examples, then valid-looking ones over its own prns;
 * a form route gets an upload of the caller's own signed archive.
 * A body field naming the path's own resource (`tunnel_prn` beside `/tunnels/{prn}`) repeats the
 * path's prn, as a real client's would.
 */
function candidateBodies(operation: Operation, caller: PopulatedOrganization, path: string): Payload[] {
  if (operation.multipart) return [uploadForm(caller, decodeURIComponent(/\/products\/([^/]+)/.exec(path)?.[1] ?? caller.legacy.productName))];
  if (!operation.body) return [undefined];
  const context: ValueContext = { prnsByType: caller.prnsByType, organizationIds: [caller.organizationId] };
  const pathPrns = new Map([...pathParameterTypes(operation.path)].map(([name, type]) => [type, decodeURIComponent(path.split('/')[operation.path.split('/').indexOf(`{${name}}`)])]));
  const repeatPath = (body: unknown) => {
    const copy = { ...(body as Record<string, unknown>) };
    for (const [type, prn] of pathPrns) if (`${type}_prn` in (operation.body!.properties ?? {})) copy[`${type}_prn`] = prn;
    return copy;
  };
  return [{}, exampleValue(operation.body), ...fc.sample(validValue(operation.body, context), { numRuns: 40, seed: 7 })].map((body) => ({ raw: serialize(repeatPath(body)), contentType: 'application/json' }));
}

/** Sends the first candidate body that passes validation; answers that response. */
async function sendPastValidation(api: Api, operation: Operation, path: string, bodies: Payload[]) {
  let last;
  for (const body of bodies) {
    last = await api(operation.method, path, undefined, body === undefined ? {} : { raw: body.raw, headers: { 'content-type': body.contentType } });
    if (last.status !== 422 && last.status !== 400) return last;
  }
  return last!;
}

/** A refusal that names nothing: 404 not_found, as for a resource that does not exist. */
function refusedAsUnknown(res: { status: number; body: any }): boolean {
  return res.status === 404 && res.body?.errors?.[0]?.code === 'not_found';
}

describe('organization isolation matrix', () => {
  it('covers every route: each is a path-resource route, a list, a referencing create, or exempt with a reason', () => {
    const uncovered: string[] = [];
    const seen = new Set<string>();
    for (const [server, operations] of [['admin', adminOperations], ['device', deviceOperations]] as const) {
      for (const o of operations) {
        const name = label(o, server);
        seen.add(name);
        const covered = o.path.includes('{') || o.method === 'GET' || referencesResources(o);
        if (!covered && !EXEMPT[name]) uncovered.push(name);
      }
    }
    const stale = Object.keys(EXEMPT).filter((name) => !seen.has(name));
    expect(uncovered, 'routes neither checked by the matrix nor exempt').toEqual([]);
    expect(stale, 'EXEMPT names routes that no longer exist').toEqual([]);
  });

  it('populates the two organizations with distinct names, serials and uuids', () => {
    const theirMarkers = markersOf(theirs);
    expect([...markersOf(mine)].filter((value) => theirMarkers.has(value))).toEqual([]);
  });

  for (const kind of ['current', 'legacy'] as const) {
    it(`another organization's prn or name in a path answers 404 and changes nothing (admin API, ${kind} key)`, async () => {
      const caller = callers.find((c) => c.kind === kind)!;
      const leaks: string[] = [];
      let checked = 0;
      const routes = adminOperations.filter((o) => o.path.includes('{') && !EXEMPT[label(o, 'admin')]).filter(forKind(kind));
      for (const operation of routes) {
        for (const path of foreignPaths(operation.path, mine, theirs)) {
          const before = operation.method === 'GET' ? null : await readable(t.api, operation, mine);
          const res = await sendPastValidation(caller.api, operation, path, candidateBodies(operation, theirs, path));
          checked += 1;
          if (!refusedAsUnknown(res)) leaks.push(`${operation.method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
          if (before !== null && JSON.stringify(await readable(t.api, operation, mine)) !== JSON.stringify(before)) leaks.push(`${operation.method} ${path}: changed the owner's resource`);
        }
      }
      expect(leaks).toEqual([]);
      expect(routes.length).toBeGreaterThanOrEqual(kind === 'current' ? 70 : 20);
      expect(checked).toBeGreaterThan(routes.length);
    });
  }

  it("another organization's prn or name in a device API path answers 404", async () => {
    const leaks: string[] = [];
    for (const operation of deviceOperations.filter((o) => o.path.includes('{') && !EXEMPT[label(o, 'device')])) {
      for (const path of foreignPaths(operation.path, mine, theirs)) {
        const res = await sendPastValidation(theirs.device.api, operation, path, candidateBodies(operation, theirs, path));
        if (res.status !== 404) leaks.push(`device ${operation.method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
    expect(leaks).toEqual([]);
  });

  for (const kind of ['current', 'legacy'] as const) {
    it(`no list or read of the caller's own answers another organization's prns or names, also when a filter names one (${kind} key)`, async () => {
      const caller = callers.find((c) => c.kind === kind)!;
      const leaks: string[] = [];
      const foreign = markersOf(mine);
      let answered = 0;
      for (const operation of adminOperations.filter((o) => o.method === 'GET' && !endsWithParameter(o.path) && !o.streams && !EXEMPT[label(o, 'admin')]).filter(forKind(kind))) {
        const path = filled(operation.path, ownValues(operation.path, theirs));
        const prnFilters = operation.parameters.filter((p) => p.in === 'query' && p.name.endsWith('_prn'));
        const queries = ['?limit=100', ...prnFilters.map((p) => `?limit=100&${p.name}=${encodeURIComponent(firstOf(mine, p.name === 'actor_prn' || p.name === 'resource_prn' ? 'device' : p.name.slice(0, -4)))}`)];
        for (const query of queries) {
          const res = await caller.api('GET', `${path}${query}`);
          if (res.status === 200) answered += 1;
          const leaked = [...stringsIn(res.body)].filter((value) => foreign.has(value));
          if (leaked.length > 0 || res.status >= 500) leaks.push(`GET ${path}${query}: ${res.status} ${leaked.join(', ')}`);
        }
      }
      expect(leaks).toEqual([]);
      expect(answered).toBeGreaterThanOrEqual(kind === 'current' ? 30 : 7);
    });
  }

  it("no device API read answers another organization's prns or names, also when a header names one", async () => {
    const leaks: string[] = [];
    const foreign = markersOf(mine);
    for (const operation of deviceOperations.filter((o) => o.method === 'GET' && !o.path.includes('{'))) {
      const headers = Object.fromEntries(operation.parameters.filter((p) => p.in === 'header' && mine.legacy.values.has(p.name)).map((p) => [p.name, mine.legacy.values.get(p.name)![0]]));
      const res = await theirs.device.api('GET', operation.path, undefined, { headers });
      const leaked = [...stringsIn(res.body)].filter((value) => foreign.has(value));
      if (leaked.length > 0 || res.status >= 500) leaks.push(`device GET ${operation.path} ${JSON.stringify(headers)}: ${res.status} ${leaked.join(', ')}`);
    }
    expect(leaks).toEqual([]);
  });

  for (const kind of ['current', 'legacy'] as const) {
    it(`a create naming another organization's resource is refused and creates nothing (${kind} key)`, async () => {
      const caller = callers.find((c) => c.kind === kind)!;
      const accepted: string[] = [];
      let checked = 0;
      const targets = [
        ...adminOperations.filter((o) => referencesResources(o) && !EXEMPT[label(o, 'admin')]).filter(forKind(kind)).map((o) => ['admin', o, caller.api] as const),
        ...(kind === 'current' ? deviceOperations.filter((o) => referencesResources(o) && !EXEMPT[label(o, 'device')]).map((o) => ['device', o, theirs.device.api] as const) : []),
      ];
      for (const [server, operation, api] of targets) {
        const path = filled(operation.path, ownValues(operation.path, theirs));
        const context: ValueContext = { prnsByType: theirs.prnsByType, organizationIds: [theirs.organizationId] };
        for (const field of referenceFields(operation)) {
          for (const foreignValue of foreignValuesOf(field, operation)) {
            const bodiesWith = (value: string): Payload[] =>
              operation.multipart
                ? [uploadForm(theirs, mine.legacy.productName, { [field]: value })]
                : fc.sample(validValue(operation.body!, context), { numRuns: 30, seed: 11 }).map((b) => ({ raw: serialize({ ...(b as object), [field]: field.endsWith('_prns') ? [value] : value }), contentType: 'application/json' }));
            const res = await sendPastValidation(api, operation, path, bodiesWith(foreignValue));
            checked += 1;
            // A dry run writes nothing by design and answers what POST /releases would: 200 with
            // valid: false and the not_found it would give.
            const dryRunRefused = res.status === 200 && res.body?.dry_run?.valid === false && JSON.stringify(res.body.dry_run.errors).includes('not_found');
            // An action that takes a reference as a report (the admin update check's `release_prn`,
            // the release a device says it runs) may answer it: then exactly as it answers a value
            // that names nothing anywhere.
            const asUnknown = res.status < 400 && !dryRunRefused && JSON.stringify((await sendPastValidation(api, operation, path, bodiesWith(unknownLike(foreignValue)))).body) === JSON.stringify(res.body);
            if ((res.status < 400 && !dryRunRefused && !asUnknown) || res.status >= 500) accepted.push(`${label(operation, server)} with ${field} of another organization: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
          }
        }
      }
      expect(accepted).toEqual([]);
      expect(checked).toBeGreaterThanOrEqual(kind === 'current' ? 12 : 4);
    });
  }

  it("an upload signed only by another organization's key answers invalid_signature and stores nothing", async () => {
    const uploads = adminOperations.filter((o) => o.multipart);
    expect(uploads.length).toBeGreaterThanOrEqual(2);
    const before = (await theirs.api('GET', '/firmwares?limit=100')).body.firmwares.length;
    for (const operation of uploads) {
      const path = filled(operation.path, ownValues(operation.path, theirs));
      const form = uploadForm(mine, theirs.legacy.productName, 'product_prn' in (operation.multipart!.properties ?? {}) ? { product_prn: theirs.legacy.productPrn } : {});
      const res = await theirs.api('POST', path, undefined, { raw: form!.raw, headers: { 'content-type': form!.contentType } });
      expect(res.status, `${operation.path}: ${JSON.stringify(res.body)}`).toBe(500);
      expect(res.body).toEqual({ errors: { detail: 'invalid_signature' } });
    }
    expect((await theirs.api('GET', '/firmwares?limit=100')).body.firmwares).toHaveLength(before);
  });
});

/** Body or form fields naming a resource: `*_prn(s)`, and the legacy ones naming a firmware by uuid. */
function referenceFields(operation: Operation): string[] {
  const schema = operation.body ?? operation.multipart;
  return Object.keys(schema?.properties ?? {}).filter((name) => (/_prns?$/.test(name) && name !== 'organization_prn') || mine.legacy.referenceFields.includes(name));
}

/** The owner's values of a reference field: its prn (for an upload, the product its archive names), or each form of its legacy name. */
function foreignValuesOf(field: string, operation: Operation): string[] {
  if (operation.multipart && field === 'product_prn') return [mine.legacy.productPrn];
  return mine.legacy.values.get(field) ?? [firstOf(mine, field.replace(/_prns?$/, ''))];
}

/** A value of the same form that names nothing: the prn's or uuid's last uuid made a fresh one. */
function unknownLike(value: string): string {
  return value.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, randomUUID());
}

/** A create or action (POST to a collection or an action path, its path the caller's own) whose body names other resources. */
function referencesResources(operation: Operation): boolean {
  return operation.method === 'POST' && !endsWithParameter(operation.path) && referenceFields(operation).length > 0;
}

/** Every string anywhere in a JSON value. */
function stringsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (typeof value === 'string') found.add(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, found);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) stringsIn(item, found);
  return found;
}

/** What the owner reads at the route's resource: the GET of the same path, or of the nearest parent that has one. */
async function readable(api: Api, operation: Operation, owner: PopulatedOrganization): Promise<unknown> {
  let template = operation.path;
  while (!adminReads.has(template) && template.lastIndexOf('/') > 0) template = template.slice(0, template.lastIndexOf('/'));
  if (!adminReads.has(template)) return null;
  const res = await api('GET', filled(template, ownValues(template, owner)));
  return { status: res.status, body: res.body };
}
