/**
 * Bundle signatures through the real admin API and the device API over mutual TLS: the create
 * checks the signature against the canonical message of the bundle's binaries (@canopy/sdk's
 * bundle-signing.ts, the same function the CLI signs with and the daemon verifies with), and a
 * device's `GET /update` hands the signatures for its target with the bundle.
 */
import { signBundle, verifyBundleSignature } from '@canopy/sdk/bundle-signing';
import { createPublicKey } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, createArtifactVersion, ed25519Keypair, signHash, uploadedBinary, type Keypair } from '../support/binaries';
import { makeLeafCertificate, makeRootCa, type TestCertificate } from '../support/certificates';
import { deviceRequest } from '../support/device-client';
import { registerDeviceCertificate, registeredCa } from '../support/device-fleet';
import { FLEET_TARGET, useFleet } from '../support/fleet';
import { expectFieldError, expectPaginated, expectReadOnlyForReadKey } from '../support/resource-checks';
import type { Api } from '../support/server';
import { useTestServer } from '../support/server';

const t = useTestServer();
const fleet = useFleet(t);
const pem = (k: Keypair) => k.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
let keypair: Keypair;
let key: { prn: string };
let root: TestCertificate;

beforeAll(async () => {
  keypair = ed25519Keypair();
  key = (await t.api('POST', '/signing_keys', { name: 'bundle signer', value: keypair.value })).body.signing_key;
  root = await makeRootCa();
  await registeredCa(t.api, root);
});

/** A bundle of two artifact versions with one verified (and, when asked, signed) binary each for `target`. */
async function twoBinaryBundle(api: Api, { target = FLEET_TARGET, signBinaries = true } = {}) {
  const binaryKey = ed25519Keypair();
  const binaryKeyPrn = (await api('POST', '/signing_keys', { name: `binaries ${Math.random()}`, value: binaryKey.value })).body.signing_key.prn;
  const versions = [await createArtifactVersion(api), await createArtifactVersion(api)];
  const binaries = [];
  for (const version of versions) {
    const { prn, binary } = await uploadedBinary(api, bytesOf(700), { until: 'signable', target, versionPrn: version.prn });
    if (signBinaries) expect((await api('POST', '/binary_signatures', { binary_prn: prn, signing_key_prn: binaryKeyPrn, signature: signHash(binaryKey.privateKey, binary.hash) })).status).toBe(201);
    binaries.push({ binary_prn: prn, target, size: binary.size as number, hash: binary.hash as string });
  }
  const bundle = (await api('POST', '/bundles', { artifact_version_prns: versions.map((v) => v.prn) })).body.bundle;
  return { bundle, binaries, versions };
}

describe('bundle signatures', () => {
  it('creates, reads, lists (globally and per bundle) and deletes, with the binary signature shape', async () => {
    const { bundle, binaries } = await twoBinaryBundle(t.api);
    const signature = signBundle(pem(keypair), bundle.prn, binaries);
    const created = await t.api('POST', '/bundle_signatures', { bundle_prn: bundle.prn, signing_key_prn: key.prn, signature: signature.toUpperCase() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const row = created.body.bundle_signature;
    expect(row).toEqual({
      prn: expect.stringMatching(new RegExp(`^prn:1:${t.organizationId}:bundle_signature:`)),
      organization_prn: `prn:1:${t.organizationId}`,
      bundle_prn: bundle.prn,
      signing_key_prn: key.prn,
      signature,
      target: null,
      inserted_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await t.api('GET', `/bundle_signatures/${row.prn}`)).body.bundle_signature).toEqual(row);
    expect((await t.api('GET', `/bundles/${bundle.prn}/signatures`)).body).toEqual({ bundle_signatures: [row], next_page: null });
    const searched = await t.api('GET', `/bundle_signatures?search=${encodeURIComponent(`bundle_prn:'${bundle.prn}'`)}`);
    expect(searched.body.bundle_signatures).toEqual([row]);
    expect((await t.api('DELETE', `/bundle_signatures/${row.prn}`)).status).toBe(204);
    expect((await t.api('GET', `/bundle_signatures/${row.prn}`)).status).toBe(404);
    expect((await t.api('GET', `/bundles/${bundle.prn}/signatures`)).body.bundle_signatures).toEqual([]);
  });

  it('refuses bad signatures, bodies and bundles with the field named, writing nothing', async () => {
    const { bundle, binaries } = await twoBinaryBundle(t.api);
    const good = signBundle(pem(keypair), bundle.prn, binaries);
    const post = (body: Record<string, unknown>) => t.api('POST', '/bundle_signatures', { bundle_prn: bundle.prn, signing_key_prn: key.prn, signature: good, ...body });
    // Signed over the binaries in another order, or by a key other than the one named.
    expectFieldError(await post({ signature: signBundle(pem(keypair), bundle.prn, [...binaries].reverse()) }), 'signature', 'invalid_signature');
    expectFieldError(await post({ signature: signBundle(pem(ed25519Keypair()), bundle.prn, binaries) }), 'signature', 'invalid_signature');
    expectFieldError(await post({ signature: 'ab' }), 'signature', 'invalid_format');
    expectFieldError(await post({ signature: undefined }), 'signature', 'required');
    expectFieldError(await post({ bundle_prn: `prn:1:${t.organizationId}:bundle:00000000-0000-4000-8000-000000000000` }), 'bundle_prn', 'not_found');
    expectFieldError(await post({ signing_key_prn: `prn:1:${t.organizationId}:signing_key:00000000-0000-4000-8000-000000000000` }), 'signing_key_prn', 'not_found');
    expectFieldError(await post({ target: '' }), 'target', 'too_short');
    // No binary for that target: nothing to sign.
    const noTarget = await post({ target: 'riscv64-unknown-linux-gnu' });
    expect(noTarget.status).toBe(409);
    expect(noTarget.body.errors[0]).toMatchObject({ code: 'bundle_not_signable', context: { target: 'riscv64-unknown-linux-gnu' } });
    expect((await t.api('GET', `/bundles/${bundle.prn}/signatures`)).body.bundle_signatures).toEqual([]);
    expect((await post({})).status).toBe(201);
    expectFieldError(await post({}), 'signing_key_prn', 'taken');
    // The same key may sign the same binaries again for the named target.
    expect((await post({ target: FLEET_TARGET })).body.bundle_signature.target).toBe(FLEET_TARGET);
  });

  it('refuses a bundle whose binaries are not all verified yet', async () => {
    const version = await createArtifactVersion(t.api);
    const { prn, binary } = await uploadedBinary(t.api, bytesOf(500), { until: 'uploadable', target: FLEET_TARGET, versionPrn: version.prn });
    const bundle = (await t.api('POST', '/bundles', { artifact_version_prns: [version.prn] })).body.bundle;
    const signature = signBundle(pem(keypair), bundle.prn, [{ binary_prn: prn, target: FLEET_TARGET, size: binary.size, hash: binary.hash }]);
    const res = await t.api('POST', '/bundle_signatures', { bundle_prn: bundle.prn, signing_key_prn: key.prn, signature });
    expect(res.status).toBe(409);
    expect(res.body.errors[0].code).toBe('bundle_not_signable');
  });

  it("keeps organizations apart: another organization's bundle, key and signatures are not found", async () => {
    const other = await t.createOrganization();
    const theirKeys = ed25519Keypair();
    const theirKey = (await other.api('POST', '/signing_keys', { name: 'theirs', value: theirKeys.value })).body.signing_key;
    const { bundle: theirBundle, binaries } = await twoBinaryBundle(other.api);
    const theirSignature = (
      await other.api('POST', '/bundle_signatures', { bundle_prn: theirBundle.prn, signing_key_prn: theirKey.prn, signature: signBundle(pem(theirKeys), theirBundle.prn, binaries) })
    ).body.bundle_signature;
    expect(theirSignature.prn).toBeDefined();
    // Valid signatures by their key over their bundle, sent by us: their prns name nothing here.
    expectFieldError(await t.api('POST', '/bundle_signatures', { bundle_prn: theirBundle.prn, signing_key_prn: key.prn, signature: signBundle(pem(keypair), theirBundle.prn, binaries) }), 'bundle_prn', 'not_found');
    const { bundle: ours, binaries: ourBinaries } = await twoBinaryBundle(t.api);
    expectFieldError(await t.api('POST', '/bundle_signatures', { bundle_prn: ours.prn, signing_key_prn: theirKey.prn, signature: signBundle(pem(theirKeys), ours.prn, ourBinaries) }), 'signing_key_prn', 'not_found');
    expect((await t.api('GET', `/bundle_signatures/${theirSignature.prn}`)).status).toBe(404);
    expect((await t.api('DELETE', `/bundle_signatures/${theirSignature.prn}`)).status).toBe(404);
    expect((await t.api('GET', `/bundles/${theirBundle.prn}/signatures`)).status).toBe(404);
    const ourList = (await t.api('GET', '/bundle_signatures?limit=100')).body.bundle_signatures;
    expect(ourList.map((s: { prn: string }) => s.prn)).not.toContain(theirSignature.prn);
    expect((await other.api('GET', `/bundle_signatures/${theirSignature.prn}`)).status).toBe(200);
  });

  it('paginates, and a read key may list but not sign', async () => {
    const keys = [ed25519Keypair(), ed25519Keypair(), ed25519Keypair()];
    const { bundle, binaries } = await twoBinaryBundle(t.api);
    const made: string[] = [];
    for (const k of keys) {
      const prn = (await t.api('POST', '/signing_keys', { name: `page ${made.length}`, value: k.value })).body.signing_key.prn;
      made.push((await t.api('POST', '/bundle_signatures', { bundle_prn: bundle.prn, signing_key_prn: prn, signature: signBundle(pem(k), bundle.prn, binaries) })).body.bundle_signature.prn);
    }
    await expectPaginated(t.api, `/bundles/${bundle.prn}/signatures`, 'bundle_signatures', made);
    await expectPaginated(t.api, `/bundle_signatures?search=${encodeURIComponent(`bundle_prn:'${bundle.prn}'`)}`, 'bundle_signatures', made);
    await expectReadOnlyForReadKey(t, '/bundle_signatures', 'bundle_signatures', { bundle_prn: bundle.prn, signing_key_prn: key.prn, signature: signBundle(pem(keypair), bundle.prn, binaries) });
  });

  it("hands a device its target's signatures with the bundle, which verify over the manifest it gets", async () => {
    const cohort = await fleet.cohort();
    const { bundle, binaries } = await twoBinaryBundle(t.api);
    const forAll = signBundle(pem(keypair), bundle.prn, binaries);
    await t.api('POST', '/bundle_signatures', { bundle_prn: bundle.prn, signing_key_prn: key.prn, signature: forAll });
    await t.api('POST', '/bundle_signatures', { bundle_prn: bundle.prn, signing_key_prn: key.prn, signature: forAll, target: FLEET_TARGET });
    expect((await t.api('POST', '/releases', { bundle_prn: bundle.prn, cohort_prn: cohort.prn, name: 'signed', required: false, schedule_date: null })).status).toBe(201);
    const device = await fleet.device({ cohortId: cohort.id });
    const certificate = await makeLeafCertificate(root, `bundle-sig-${device.id.slice(0, 8)}`);
    await registerDeviceCertificate(t.api, device.prn, certificate);

    const answer = (await deviceRequest(t, '/update?expand=bundle,manifest', { credentials: certificate })).body;
    expect(answer.status).toBe('update');
    expect(answer.bundle.signatures).toEqual([
      { signature: forAll, signing_key_prn: key.prn, public_value: keypair.publicKey.export({ format: 'pem', type: 'spki' }).toString(), target: null },
      { signature: forAll, signing_key_prn: key.prn, public_value: expect.any(String), target: FLEET_TARGET },
    ]);
    const entries = answer.manifest.map((e: { binary_prn: string; target: string; size: number; hash: string }) => ({ binary_prn: e.binary_prn, target: e.target, size: e.size, hash: e.hash }));
    expect(entries).toEqual(binaries);
    expect(verifyBundleSignature(createPublicKey(answer.bundle.signatures[0].public_value), answer.bundle.prn, entries, answer.bundle.signatures[0].signature)).toBe(true);

    // A device of another target is not handed the signature made for this one.
    const other = await fleet.device({ cohortId: cohort.id, target: 'x86_64-unknown-linux-gnu' });
    const otherCert = await makeLeafCertificate(root, `bundle-sig-${other.id.slice(0, 8)}`);
    await registerDeviceCertificate(t.api, other.prn, otherCert);
    const otherAnswer = (await deviceRequest(t, '/update?expand=bundle', { credentials: otherCert })).body;
    expect(otherAnswer.bundle === null || otherAnswer.bundle.signatures.every((s: { target: string | null }) => s.target === null)).toBe(true);
  });
});
