/**
 * Test fixtures for releases, bundle overrides and update checks, built through the real admin
 * API like a user would: a product, cohorts, devices, and bundles whose one binary went through
 * the real upload flow (parts, hashing job) and, unless asked otherwise, a real Ed25519
 * signature. So update checks answer with real manifests: signatures with their PEM public key
 * and a download URL that serves the bytes.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll } from 'vitest';
import { bytesOf, createArtifactVersion, ed25519Keypair, signHash, uploadedBinary } from './binaries';
import type { Api, TestServer } from './server';

export const FLEET_TARGET = 'aarch64-unknown-linux-gnu';

/** The id at the end of a prn (tests often need both). */
const idOf = (prn: string) => prn.split(':').pop()!;

async function created(api: Api, path: string, body: Record<string, unknown>, key: string): Promise<{ id: string; prn: string }> {
  const res = await api('POST', path, body);
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  const prn: string = res.body[key].prn;
  return { id: idOf(prn), prn };
}

export interface FleetBundle {
  id: string;
  prn: string;
  binaryId: string;
  binaryPrn: string;
  hash: string;
  size: number;
  /** The bytes the binary was uploaded with, to compare a download with. */
  bytes: Buffer;
  signingKeyPrn: string | null;
}

export interface Fleet {
  productPrn: string;
  cohort(name?: string): Promise<{ id: string; prn: string }>;
  device(options?: { cohortId?: string | null; tags?: string[] | null; quarantined?: boolean; target?: string | null }): Promise<{ id: string; prn: string }>;
  /** Many devices of one cohort (created a few at a time). */
  devices(count: number, cohortId: string): Promise<{ id: string; prn: string }[]>;
  bundle(options?: { signed?: boolean; name?: string; target?: string }): Promise<FleetBundle>;
}

export async function createFleet(api: Api): Promise<Fleet> {
  const product = await created(api, '/products', { name: `product-${randomUUID().slice(0, 8)}` }, 'product');
  const organizationId = product.prn.split(':')[2];
  const cohortPrn = (id: string) => `prn:1:${organizationId}:cohort:${id}`;
  // One signing key per fleet: signatures in manifests carry its PEM.
  const keypair = ed25519Keypair();
  const signingKey = await created(api, '/signing_keys', { name: `fleet-${product.id.slice(0, 8)}`, value: keypair.value }, 'signing_key');

  const device: Fleet['device'] = async ({ cohortId = null, tags = null, quarantined = false, target = FLEET_TARGET } = {}) =>
    created(
      api,
      '/devices',
      {
        identifier: `device-${randomUUID()}`,
        product_prn: product.prn,
        ...(cohortId ? { cohort_prn: cohortPrn(cohortId) } : {}),
        ...(tags ? { tags } : {}),
        ...(target ? { target } : {}),
        quarantined,
      },
      'device',
    );

  return {
    productPrn: product.prn,
    cohort: (name = 'cohort') => created(api, '/cohorts', { name: `${name}-${randomUUID().slice(0, 8)}`, product_prn: product.prn }, 'cohort'),
    device,
    async devices(count, cohortId) {
      const made: { id: string; prn: string }[] = [];
      for (let i = 0; i < count; i += 25) {
        made.push(...(await Promise.all(Array.from({ length: Math.min(25, count - i) }, () => device({ cohortId })))));
      }
      return made;
    },
    async bundle({ signed = true, name = `bundle-${randomUUID().slice(0, 8)}`, target = FLEET_TARGET } = {}) {
      const version = await createArtifactVersion(api);
      const bytes = bytesOf(1024);
      const { prn: binaryPrn, binary } = await uploadedBinary(api, bytes, { until: 'signable', target, versionPrn: version.prn });
      if (signed) {
        const signature = signHash(keypair.privateKey, binary.hash);
        const res = await api('POST', '/binary_signatures', { binary_prn: binaryPrn, signing_key_prn: signingKey.prn, signature });
        if (res.status !== 201) throw new Error(`signature: ${res.status} ${JSON.stringify(res.body)}`);
      }
      const bundle = await created(api, '/bundles', { name, artifact_version_prns: [version.prn] }, 'bundle');
      return { ...bundle, binaryId: idOf(binaryPrn), binaryPrn, hash: binary.hash, size: bytes.length, bytes, signingKeyPrn: signed ? signingKey.prn : null };
    },
  };
}

/**
 * A fleet on the surrounding test file's server (from useTestServer), created in beforeAll. Like
 * useTestServer, the returned object forwards to the real fleet, so tests write `fleet.cohort()`.
 */
export function useFleet(t: TestServer): Fleet {
  let fleet: Fleet | undefined;
  beforeAll(async () => {
    fleet = await createFleet(t.api);
  });
  return new Proxy({} as Fleet, {
    get(_, key) {
      if (!fleet) throw new Error('the fleet is created in beforeAll; use it inside tests');
      return fleet[key as keyof Fleet];
    },
  });
}
