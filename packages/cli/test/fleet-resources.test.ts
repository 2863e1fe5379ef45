/** Artifacts, artifact versions, cohorts, devices and signing keys through the CLI against a real server. */
import { createPublicKey } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generateSigningKeyPair } from '@canopy/sdk';
import { describe, expect, it } from 'vitest';
import { canopy, canopyOk } from './support/run-canopy';
import { useCliEnv, useTestServer } from './support/server';

const server = useTestServer();
const env = useCliEnv(server);

const ok = canopyOk(env);

describe('artifacts and artifact versions', () => {
  it('create, get, list, update, delete', async () => {
    const artifact = (await ok(['artifacts', 'create', '--name', 'rootfs', '--description', 'root filesystem', '--custom-metadata', '{"board":"imx8"}'])).artifact;
    expect(artifact).toMatchObject({ name: 'rootfs', custom_metadata: { board: 'imx8' } });
    expect((await ok(['artifacts', 'get', artifact.prn])).artifact.prn).toBe(artifact.prn);
    expect((await ok(['artifacts', 'update', artifact.prn, '--description', 'changed'])).artifact.description).toBe('changed');

    const version = (await ok(['artifact-versions', 'create', '--artifact-prn', artifact.prn, '--version', '1.2.3'])).artifact_version;
    expect(version).toMatchObject({ artifact_prn: artifact.prn, version: '1.2.3' });
    expect((await ok(['artifact-versions', 'list', '--all'])).artifact_versions.map((v: { prn: string }) => v.prn)).toContain(version.prn);
    expect((await ok(['artifact-versions', 'update', version.prn, '--description', 'fixes'])).artifact_version.description).toBe('fixes');
    expect((await ok(['artifact-versions', 'get', version.prn])).artifact_version.version).toBe('1.2.3');
    expect((await canopy(['artifact-versions', 'delete', version.prn], env)).code).toBe(0);

    const scratch = (await ok(['artifacts', 'create', '--name', 'scratch'])).artifact;
    const deleted = await canopy(['artifacts', 'delete', scratch.prn], env);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe('');
    expect((await canopy(['artifacts', 'get', scratch.prn], env)).code).toBe(1);
  });

  it('validation errors show code and context', async () => {
    const run = await canopy(['artifacts', 'create', '--name', 'x'.repeat(129)], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/answered 4\d\d/);
  });
});

describe('cohorts and devices', () => {
  it('create, get, list, update; devices delete', async () => {
    const product = (await ok(['products', 'create', '--name', 'gateway'])).product;
    const cohort = (await ok(['cohorts', 'create', '--name', 'field', '--product-prn', product.prn])).cohort;
    expect(cohort.product_prn).toBe(product.prn);
    expect((await ok(['cohorts', 'update', cohort.prn, '--description', 'east'])).cohort.description).toBe('east');
    expect((await ok(['cohorts', 'get', cohort.prn])).cohort.name).toBe('field');
    expect((await ok(['cohorts', 'list'])).cohorts).toHaveLength(1);

    const device = (await ok(['devices', 'create', '--identifier', 'gw-0001', '--product-prn', product.prn, '--cohort-prn', cohort.prn, '--tags', 'east,beta'])).device;
    expect(device).toMatchObject({ identifier: 'gw-0001', cohort_prn: cohort.prn, tags: ['east', 'beta'] });
    expect((await ok(['devices', 'update', device.prn, '--quarantined', 'true'])).device.quarantined).toBe(true);
    expect((await ok(['devices', 'list', '--search', "identifier:'gw-0001'"])).devices).toHaveLength(1);
    expect((await ok(['devices', 'get', device.prn])).device.identifier).toBe('gw-0001');
    expect((await canopy(['devices', 'delete', device.prn], env)).code).toBe(0);
  });
});

describe('signing keys', () => {
  it('--generate keeps the private key 0600 locally and registers the public key', async () => {
    const created = (await ok(['signing-keys', 'create', '--generate', 'release'])).signing_key;
    expect(created.name).toBe('release');
    const dir = path.join(env.CANOPY_CONFIG_DIR, 'signing-keys');
    expect(fs.statSync(path.join(dir, 'release.pem')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'release.json'), 'utf8')).signing_key_prn).toBe(created.prn);
    expect((await canopy(['signing-keys', 'create', '--generate', 'release'], env)).code).toBe(2);
  });

  it('public-key prints the registered key as the PEM a device trusts, from either stored form', async () => {
    const local = (await ok(['signing-keys', 'create', '--generate', 'exported'])).signing_key;
    const privatePem = fs.readFileSync(path.join(env.CANOPY_CONFIG_DIR, 'signing-keys', 'exported.pem'), 'utf8');
    const printed = await canopy(['signing-keys', 'public-key', local.prn], env);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toBe(createPublicKey(privatePem).export({ type: 'spki', format: 'pem' }));
    const pair = generateSigningKeyPair();
    const byPem = (await ok(['signing-keys', 'create', '--name', 'exported-pem', '--value', pair.publicKeyPem])).signing_key;
    expect((await canopy(['signing-keys', 'public-key', byPem.prn], env)).stdout).toBe(pair.publicKeyPem);
    expect((await canopy(['signing-keys', 'public-key', local.prn.replace(/[^:]+$/, '00000000-0000-0000-0000-000000000000')], env)).code).not.toBe(0);
  });

  it('--value, --value-path, get, list, update, delete', async () => {
    const pair = generateSigningKeyPair();
    const byValue = (await ok(['signing-keys', 'create', '--name', 'ci', '--value', pair.publicKeyValue])).signing_key;
    const file = path.join(env.CANOPY_CONFIG_DIR, 'public.pem');
    fs.writeFileSync(file, generateSigningKeyPair().publicKeyPem);
    const byFile = (await ok(['signing-keys', 'create', '--name', 'from-file', '--value-path', file])).signing_key;
    expect(byFile.prn).not.toBe(byValue.prn);
    expect((await ok(['signing-keys', 'update', byValue.prn, '--name', 'ci-2'])).signing_key.name).toBe('ci-2');
    expect((await ok(['signing-keys', 'get', byValue.prn])).signing_key.name).toBe('ci-2');
    expect((await ok(['signing-keys', 'list', '--all'])).signing_keys.length).toBeGreaterThanOrEqual(2);
    expect((await canopy(['signing-keys', 'delete', byFile.prn], env)).code).toBe(0);
    expect((await canopy(['signing-keys', 'create', '--name', 'both', '--value', 'x', '--generate', 'y'], env)).code).toBe(2);
  });
});
