/**
 * One of every admin resource in an organization, made through the real admin API, and the prns
 * the server then lists. The route fuzzer aims at them (so generated requests reach handlers with
 * real rows) and the organization-isolation matrix asks another organization for them.
 */
import { randomUUID } from 'node:crypto';
import { signBundle } from '@canopy/sdk/bundle-signing';
import { ed25519Keypair } from './binaries';
import { pendingReclaim } from './claims';
import { expect } from 'vitest';
import { deviceEnrollment, type EnrolledDevice } from './device-json-client';
import { createFleet } from './fleet';
import { populateLegacy, type LegacyResources } from './legacy-population';
import type { Api, TestServer } from './server';

export interface PopulatedOrganization {
  organizationId: string;
  name: string;
  api: Api;
  /** Every prn the organization's list routes answer, by type word (`device`, `binary`...). */
  prnsByType: Map<string, string[]>;
  /** An enrolled device (certificate registered) of this organization, to call the device API as. */
  device: EnrolledDevice;
  /** The one-time token of a web console shell. */
  shellToken: string;
  /** The legacy API's resources and the names, serials and uuids its paths take. */
  legacy: LegacyResources;
}

async function created(api: Api, path: string, body: unknown, key: string): Promise<string> {
  const res = await api('POST', path, body);
  expect(res.status, `POST ${path}: ${JSON.stringify(res.body)}`).toBe(201);
  return res.body[key].prn;
}

/** The type word of a prn: `prn:1:<org>:device:<id>` -> device, `prn:1:user:<id>` -> user. */
export function prnType(prn: string): string | null {
  const parts = prn.split(':');
  if (parts[0] !== 'prn' || parts[1] !== '1') return null;
  if (parts.length === 4 && parts[2] === 'user') return 'user';
  if (parts.length === 3) return 'organization';
  return parts.length === 5 ? parts[3] : null;
}

/** Every `prn:1:...` string anywhere in a JSON value. */
export function prnsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (typeof value === 'string' && value.startsWith('prn:1:')) found.add(value);
  else if (Array.isArray(value)) for (const item of value) prnsIn(item, found);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) prnsIn(item, found);
  return found;
}

/** The list routes of the admin document (GET without path parameters, answering a list). */
export async function harvestPrns(api: Api, listPaths: string[]): Promise<Map<string, string[]>> {
  const byType = new Map<string, string[]>();
  for (const path of listPaths) {
    // A live stream (GET /events/stream) never ends: it is not a list to harvest.
    if (path.endsWith('/stream')) continue;
    const res = await api('GET', `${path}?limit=100`);
    if (res.status !== 200) continue;
    for (const prn of prnsIn(res.body)) {
      const type = prnType(prn);
      if (!type) continue;
      const list = byType.get(type) ?? [];
      if (!list.includes(prn)) list.push(prn);
      byType.set(type, list);
    }
  }
  return byType;
}

/** A bundle signature (of every target's binaries) by a new signing key, for the matrix to aim at. */
async function signedBundle(api: Api, bundlePrn: string): Promise<void> {
  const keypair = ed25519Keypair();
  const keyPrn = await created(api, '/signing_keys', { name: `bundle-${randomUUID().slice(0, 8)}`, value: keypair.value }, 'signing_key');
  const manifest = (await api('GET', `/bundles/${bundlePrn}`)).body.bundle;
  const binaries = [];
  for (const versionPrn of manifest.artifact_version_prns as string[]) {
    const listed = (await api('GET', `/binaries?artifact_version_prn=${encodeURIComponent(versionPrn)}`)).body.binaries;
    for (const b of listed) binaries.push({ binary_prn: b.prn, target: b.target, size: b.size, hash: b.hash });
  }
  const signature = signBundle(keypair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), bundlePrn, binaries);
  await created(api, '/bundle_signatures', { bundle_prn: bundlePrn, signing_key_prn: keyPrn, signature }, 'bundle_signature');
}

/** `webhookUrl`: a receiver the server can reach (webhooks are verified when created). */
export async function populateOrganization(
  t: TestServer,
  organization: { organizationId: string; name: string; api: Api },
  listPaths: string[],
  webhookUrl: string,
): Promise<PopulatedOrganization> {
  const { api } = organization;
  const enrollment = deviceEnrollment(t);
  const device = await enrollment.device(organization, `populated-${randomUUID()}`);
  // First, so the fleet's product and device stay the newest of their kind (what walks take first).
  await pendingReclaim(t, api, await created(api, '/products', { name: `claims-${randomUUID().slice(0, 8)}` }, 'product'));
  const fleet = await createFleet(api);
  const cohort = await fleet.cohort();
  const fleetDevice = await fleet.device({ cohortId: cohort.id });
  const bundle = await fleet.bundle();
  await signedBundle(api, bundle.prn);
  await created(api, '/claim_tokens', { max_uses: 1, expires_at: new Date(Date.now() + 86_400_000).toISOString(), product_prn: fleet.productPrn }, 'claim_token');
  await created(api, '/releases', { bundle_prn: bundle.prn, cohort_prn: cohort.prn, name: 'populated', required: false, schedule_date: null }, 'release');
  const override = await created(
    api,
    '/bundle_overrides',
    { name: 'populated', bundle_prn: bundle.prn, starts_at: new Date(Date.now() - 60_000).toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString() },
    'bundle_override',
  );
  expect((await api('POST', `/bundle_overrides/${override}/devices`, { device_prn: fleetDevice.prn })).status).toBe(201);
  await created(api, '/webhooks', { url: webhookUrl, enabled_events: ['device.release_changed'] }, 'webhook');
  await created(api, '/tunnels', { device_prn: device.prn, device_tunnel_port: 22 }, 'tunnel');
  const username = `user-${randomUUID().slice(0, 8)}`;
  const userPrn = await created(api, '/users', { username, password: 'long enough password', role: 'read' }, 'user');
  // A session of that user, listed by its admin route (the harvest walks paths without parameters).
  expect((await api('POST', '/users/auth', { username, password: 'long enough password' }, { key: null })).status).toBe(200);
  const shell = await api('POST', '/web-console-shells', { device_prn: device.prn });
  expect(shell.status, JSON.stringify(shell.body)).toBe(201);
  const shellToken = String(shell.body.url).split('/').pop()!;
  const legacy = await populateLegacy(api, organization.name, device);
  return { ...organization, prnsByType: await harvestPrns(api, [...listPaths, `/users/${encodeURIComponent(userPrn)}/sessions`]), device, shellToken, legacy };
}
