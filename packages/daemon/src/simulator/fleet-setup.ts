/**
 * What a simulated fleet needs on the server, made through the admin API as an operator would:
 * a signing key, a product and a cohort, a CA registered with proof of possession whose JITP
 * settings admit every virtual device into that cohort on its first connection, and a signed
 * release of one binary for the `file` installer.
 */
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { AdminApi } from '../admin-api.ts';
import { issueLeaf, makeCa, type Issued } from './certificates.ts';

export { adminApi, type AdminApi } from '../admin-api.ts';

export interface SimulatedFleet {
  ca: Issued;
  cohortPrn: string;
  productName: string;
  signingKey: { prn: string; privateKey: KeyObject; publicKey: KeyObject };
  /** The last release's artifact and bytes, which a `changeOf` release changes (deltas). */
  app?: { artifactPrn: string; bytes: Buffer };
}

/**
 * With `cohortPrn`, the devices join that existing cohort (its product's name goes into the
 * CA's JITP settings) instead of a new product and cohort.
 */
export async function setUpFleet(api: AdminApi, name: string, cohortPrn?: string): Promise<SimulatedFleet> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const signingKey = (await api('POST', '/signing_keys', { name: `${name}-key`, value: raw.toString('base64') })).signing_key;
  let cohort: { prn: string; product_prn: string };
  let productName = name;
  if (cohortPrn) {
    cohort = (await api('GET', `/cohorts/${cohortPrn}`)).cohort;
    productName = (await api('GET', `/products/${cohort.product_prn}`)).product.name;
  } else {
    const product = (await api('POST', '/products', { name })).product;
    cohort = (await api('POST', '/cohorts', { name: `${name}-cohort`, product_prn: product.prn })).cohort;
  }
  const ca = await makeCa(`${name} CA`);
  const code = (await api('POST', '/ca_certificates/verification_codes')).verification_code;
  const proof = await issueLeaf(ca, code);
  await api('POST', '/ca_certificates', {
    certificate: Buffer.from(ca.certPem).toString('base64'),
    verification_certificate: Buffer.from(proof.certPem).toString('base64'),
    description: `${name} simulated devices`,
    jitp: { description: 'simulated device', tags: ['simulated'], product_name: productName, cohort_prn: cohort.prn },
  });
  return { ca, cohortPrn: cohort.prn, productName: name, signingKey: { prn: signingKey.prn, privateKey, publicKey } };
}

/** The organization's signing keys as public keys: what devices joining an existing release trust. */
export async function organizationSigningKeys(api: AdminApi): Promise<{ id: string; key: KeyObject }[]> {
  const keys: { id: string; key: KeyObject }[] = [];
  for (let page: string | null = ''; page !== null; ) {
    const answer = await api('GET', `/signing_keys?limit=100${page ? `&page=${encodeURIComponent(page)}` : ''}`);
    for (const key of answer.signing_keys as { prn: string; value: string }[]) {
      const der = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(key.value, 'base64')]);
      keys.push({ id: key.prn, key: createPublicKey({ key: der, format: 'der', type: 'spki' }) });
    }
    page = answer.next_page;
  }
  return keys;
}

/** Waits until the server counts `expected` devices on the release (their checks report it), or `deadline`. */
export async function serverOnRelease(api: AdminApi, releasePrn: string, expected: number, deadline: number): Promise<number> {
  for (;;) {
    const onRelease: number = (await api('GET', `/releases/${releasePrn}/rollout`)).rollout.on_release;
    if (onRelease >= expected || Date.now() > deadline) return onRelease;
    await new Promise((r) => setTimeout(r, 500));
  }
}

export interface SimulatedRelease {
  releasePrn: string;
  bundlePrn: string;
  /** The release's binary (absent for a release the simulator only watches). */
  binaryPrn?: string;
  size: number;
}

/** `bytes` with `fraction` of its 4 KiB blocks rewritten (at least one): an update a delta carries. */
function changedBlocks(bytes: Buffer, fraction: number): Buffer {
  const out = Buffer.from(bytes);
  const blocks = Math.ceil(out.length / 4096);
  const changed = Math.max(1, Math.round(blocks * fraction));
  for (let i = 0; i < changed; i++) randomBytes(4096).copy(out, Math.floor((i * blocks) / changed) * 4096);
  return out;
}

/**
 * A signed binary of `size` random bytes (or, with `changeOfLast`, the last release's binary
 * with that fraction of its blocks rewritten, as a new version of its artifact) for the `file` installer, bundled and released to the
 * cohort; `release` adds fields to the release's create (its health gate, say).
 */
export async function publishRelease(
  api: AdminApi,
  fleet: SimulatedFleet,
  options: { size: number; version: string; phaseValue?: number; release?: Record<string, unknown>; changeOfLast?: number },
): Promise<SimulatedRelease> {
  const last = options.changeOfLast !== undefined ? fleet.app : undefined;
  const bytes = last ? changedBlocks(last.bytes, options.changeOfLast!) : randomBytes(options.size);
  const hash = createHash('sha256').update(bytes).digest('hex');
  const artifactPrn = last?.artifactPrn ?? (await api('POST', '/artifacts', { name: `${fleet.productName}-app-${options.version}` })).artifact.prn;
  fleet.app = { artifactPrn, bytes };
  const version = (await api('POST', '/artifact_versions', { artifact_prn: artifactPrn, version: options.version })).artifact_version;
  const metadata = { canopy: { installer: 'file', file: { path: '/opt/app/app.bin', mode: '0644' }, reboot_required: false } };
  const binary = (await api('POST', '/binaries', { artifact_version_prn: version.prn, hash, size: bytes.length, target: 'simulated', custom_metadata: metadata })).binary;
  const part = (await api('PUT', `/binaries/${binary.prn}/parts/1`, { expected_binary_size: bytes.length, hash, size: bytes.length })).binary_part;
  const put = await fetch(part.presigned_upload_url, { method: 'PUT', body: new Uint8Array(bytes) });
  if (!put.ok) throw new Error(`part upload answered ${put.status}`);
  await api('PATCH', `/binaries/${binary.prn}`, { state: 'hashable' });
  await api('PATCH', `/binaries/${binary.prn}`, { state: 'hashing' });
  for (let i = 0; (await api('GET', `/binaries/${binary.prn}`)).binary.state !== 'signable'; i++) {
    if (i > 600) throw new Error('binary never became signable');
    await new Promise((r) => setTimeout(r, 100));
  }
  const signature = sign(null, Buffer.from(hash, 'ascii'), fleet.signingKey.privateKey).toString('hex');
  await api('POST', '/binary_signatures', { binary_prn: binary.prn, signing_key_prn: fleet.signingKey.prn, signature });
  const bundle = (await api('POST', '/bundles', { name: `${fleet.productName}-${options.version}`, artifact_version_prns: [version.prn] })).bundle;
  const release = (
    await api('POST', '/releases', {
      bundle_prn: bundle.prn,
      cohort_prn: fleet.cohortPrn,
      name: `${fleet.productName} ${options.version}`,
      version: options.version,
      required: false,
      schedule_date: null,
      ...(options.phaseValue !== undefined ? { phase_value: options.phaseValue } : {}),
      ...options.release,
    })
  ).release;
  return { releasePrn: release.prn, bundlePrn: bundle.prn, binaryPrn: binary.prn, size: bytes.length };
}
