/**
 * Signing a bundle with a local Ed25519 key and attaching the signature: the bundle's live
 * binaries are gathered through the admin API in manifest order (bundle position, then target in
 * code-point order), for one target or for every target, and signed with bundle-signing.ts.
 */
import { bundleSignatureMessage, signBundle, type SignedBinary } from './bundle-signing';
import type { CanopyClient } from './client';
import { listAll } from './paginate';

export interface BundleSignature {
  prn: string;
  bundle_prn: string;
  signing_key_prn: string;
  signature: string;
  target: string | null;
  [field: string]: unknown;
}

const byTarget = (a: SignedBinary, b: SignedBinary) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0);

/** The binaries a device of `target` (every target when null) is offered for the bundle, in manifest order. */
export async function bundleBinariesToSign(client: CanopyClient, bundlePrn: string, target: string | null = null): Promise<SignedBinary[]> {
  const { bundle } = await client.request<{ bundle: { artifact_version_prns: string[] } }>('GET', `/bundles/${encodeURIComponent(bundlePrn)}`);
  const signed: SignedBinary[] = [];
  for (const versionPrn of bundle.artifact_version_prns) {
    const listed = await listAll<{ prn: string; target: string; size: number; hash: string; state: string }>(client, '/binaries', {
      itemsKey: 'binaries',
      query: { limit: 100, artifact_version_prn: versionPrn },
    });
    const live = listed.filter((b) => b.state !== 'destroyed' && (target === null || b.target === target));
    if (live.length === 0) throw new Error(`artifact version ${versionPrn} has no binary${target ? ` for target ${target}` : ''}: the bundle cannot be signed`);
    signed.push(...live.map((b) => ({ binary_prn: b.prn, target: b.target, size: b.size, hash: b.hash })).sort(byTarget));
  }
  bundleSignatureMessage(bundlePrn, signed); // throws here, before any request, for what cannot be signed
  return signed;
}

/** Signs the bundle's binaries with a local key and attaches the signature. */
export async function signBundleAndAttach(client: CanopyClient, bundlePrn: string, signingKeyPrn: string, privateKeyPem: string, target: string | null = null): Promise<BundleSignature> {
  const signature = signBundle(privateKeyPem, bundlePrn, await bundleBinariesToSign(client, bundlePrn, target));
  const answer = await client.request<{ bundle_signature: BundleSignature }>('POST', '/bundle_signatures', {
    body: { bundle_prn: bundlePrn, signing_key_prn: signingKeyPrn, signature, ...(target ? { target } : {}) },
  });
  return answer.bundle_signature;
}
