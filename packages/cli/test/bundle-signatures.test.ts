/**
 * Bundle signatures through the CLI against a real server: signed here with a local key pair
 * (every target's binaries, or one target's), given as hex, read, listed and removed. The
 * signatures are checked with the SDK's canonical message, as a device checks them.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generateSigningKeyPair, signBundle, signingKeyPublicKey, verifyBundleSignature } from '@canopy/sdk';
import { describe, expect, it } from 'vitest';
import { fleetFixtures, prns } from './support/fixtures';
import { canopy, canopyOk } from './support/run-canopy';
import { temporaryConfigDir, useCliEnv, useTestServer } from './support/server';

const server = useTestServer();
const env = useCliEnv(server);
const ok = canopyOk(env);

describe('bundle-signatures', () => {
  it('create with a local key pair (all targets, one target) and a given signature; get, list, delete', async () => {
    const { version } = await fleetFixtures(ok, 'bundle-sigs');
    const localKey = (await ok(['signing-keys', 'create', '--generate', 'bundle-sigs-ci'])).signing_key;
    const uploaded = [];
    // Two targets, created in the opposite of manifest order: the signature follows manifest order.
    for (const target of ['x86_64-unknown-linux-gnu', 'aarch64-unknown-linux-gnu']) {
      const file = path.join(temporaryConfigDir(), `${target}.bin`);
      fs.writeFileSync(file, randomBytes(4096));
      uploaded.push((await ok(['binaries', 'create', '--content-path', file, '--artifact-version-prn', version.prn, '--target', target, '--signing-key-pair', 'bundle-sigs-ci'])).binary);
    }
    const bundle = (await ok(['bundles', 'create', '--name', 'signed-bundle', '--artifact-version-prns', version.prn])).bundle;
    const ordered = [uploaded[1], uploaded[0]].map((b) => ({ binary_prn: b.prn, target: b.target, size: b.size, hash: b.hash }));
    const key = signingKeyPublicKey(localKey.value);

    const everyTarget = (await ok(['bundle-signatures', 'create', '--bundle-prn', bundle.prn, '--signing-key-pair', 'bundle-sigs-ci'])).bundle_signature;
    expect(everyTarget).toMatchObject({ bundle_prn: bundle.prn, signing_key_prn: localKey.prn, target: null });
    expect(verifyBundleSignature(key, bundle.prn, ordered, everyTarget.signature)).toBe(true);
    const oneTarget = (await ok(['bundle-signatures', 'create', '--bundle-prn', bundle.prn, '--signing-key-pair', 'bundle-sigs-ci', '--target', 'aarch64-unknown-linux-gnu'])).bundle_signature;
    expect(oneTarget.target).toBe('aarch64-unknown-linux-gnu');
    expect(verifyBundleSignature(key, bundle.prn, ordered.slice(0, 1), oneTarget.signature)).toBe(true);

    const pair = generateSigningKeyPair();
    const givenKey = (await ok(['signing-keys', 'create', '--name', 'bundle-sigs-given', '--value', pair.publicKeyValue])).signing_key;
    const wrong = await canopy(['bundle-signatures', 'create', '--bundle-prn', bundle.prn, '--signing-key-prn', givenKey.prn, '--signature', signBundle(pair.privateKeyPem, bundle.prn, [...ordered].reverse())], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('invalid_signature');
    const given = (await ok(['bundle-signatures', 'create', '--bundle-prn', bundle.prn, '--signing-key-prn', givenKey.prn, '--signature', signBundle(pair.privateKeyPem, bundle.prn, ordered)])).bundle_signature;

    expect((await ok(['bundle-signatures', 'get', given.prn])).bundle_signature).toEqual(given);
    expect(prns((await ok(['bundle-signatures', 'list', '--order', 'asc', '--search', `bundle_prn:'${bundle.prn}'`])).bundle_signatures)).toEqual([everyTarget.prn, oneTarget.prn, given.prn]);
    expect((await canopy(['bundle-signatures', 'delete', given.prn], env)).code).toBe(0);
    expect((await canopy(['bundle-signatures', 'get', given.prn], env)).code).toBe(1);
  });

  it('create without a signature or a key pair is a usage error', async () => {
    const run = await canopy(['bundle-signatures', 'create', '--bundle-prn', 'prn:1:o:bundle:b'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--signing-key-pair');
  });
});
