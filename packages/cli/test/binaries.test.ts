/**
 * Binaries, their parts and their signatures through the CLI against a real server: a part
 * declared and uploaded by hand, and signatures attached standalone (made here from a local key
 * pair, or given as hex) and removed. The full upload pipeline of `binaries create
 * --content-path` on 64 MiB is in binaries-create.test.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generateSigningKeyPair, signBinaryHash, verifyBinarySignature } from '@canopy/sdk';
import { describe, expect, it } from 'vitest';
import { fleetFixtures, prns } from './support/fixtures';
import { canopy, canopyOk } from './support/run-canopy';
import { temporaryConfigDir, useCliEnv, useTestServer } from './support/server';

const server = useTestServer();
const env = useCliEnv(server);
const ok = canopyOk(env);

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('artifacts and versions, listed by parent', () => {
  it('artifacts list, artifact-versions list --artifact-prn, binaries list --artifact-version-prn', async () => {
    const { artifact, version } = await fleetFixtures(ok, 'lists');
    const { version: otherVersion } = await fleetFixtures(ok, 'lists-other');
    expect(prns((await ok(['artifacts', 'list', '--all'])).artifacts)).toContain(artifact.prn);
    expect(prns((await ok(['artifact-versions', 'list', '--artifact-prn', artifact.prn])).artifact_versions)).toEqual([version.prn]);

    const hash = sha256(Buffer.from('x'));
    const binary = (await ok(['binaries', 'create', '--artifact-version-prn', version.prn, '--target', 'riscv64gc-unknown-linux-gnu', '--hash', hash, '--size', '1'])).binary;
    await ok(['binaries', 'create', '--artifact-version-prn', otherVersion.prn, '--target', 'riscv64gc-unknown-linux-gnu', '--hash', hash, '--size', '1']);
    expect(prns((await ok(['binaries', 'list', '--artifact-version-prn', version.prn])).binaries)).toEqual([binary.prn]);
  });
});

describe('binary-parts', () => {
  it('create declares a part, its bytes go to the presigned URL, list shows it valid; binaries update --state hashable', async () => {
    const { version } = await fleetFixtures(ok, 'parts');
    const bytes = randomBytes(64 * 1024);
    const hash = sha256(bytes);
    const size = String(bytes.length);
    const binary = (await ok(['binaries', 'create', '--artifact-version-prn', version.prn, '--target', 'aarch64-unknown-linux-gnu', '--hash', hash, '--size', size])).binary;
    expect(binary.state).toBe('uploadable');

    const part = (await ok(['binary-parts', 'create', binary.prn, '1', '--expected-binary-size', size, '--hash', hash, '--size', size])).binary_part;
    expect(part).toMatchObject({ index: 1, size: bytes.length, hash, presigned_upload_url: expect.any(String) });
    const upload = await fetch(new URL(part.presigned_upload_url, server.url), { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    expect(upload.status, await upload.text()).toBeLessThan(300);

    expect((await ok(['binary-parts', 'list', binary.prn])).binary_parts).toEqual([expect.objectContaining({ index: 1, state: 'valid' })]);
    expect((await ok(['binaries', 'update', binary.prn, '--state', 'hashable'])).binary.state).toBe('hashable');

    // A part size that is not a number never reaches the server.
    expect((await canopy(['binary-parts', 'create', binary.prn, '2', '--expected-binary-size', size, '--hash', hash, '--size', 'big'], env)).code).toBe(2);
  });
});

describe('binary-signatures', () => {
  it('create with a local key pair and with a given signature, delete; binaries get, update, delete', async () => {
    const { version } = await fleetFixtures(ok, 'sigs');
    const file = path.join(temporaryConfigDir(), 'app.bin');
    fs.writeFileSync(file, randomBytes(256 * 1024));
    const localKey = (await ok(['signing-keys', 'create', '--generate', 'sigs-ci'])).signing_key;
    // On a terminal the upload draws a progress bar instead of a line per part.
    const upload = await canopy(['binaries', 'create', '--content-path', file, '--artifact-version-prn', version.prn, '--target', 'x86_64-unknown-linux-gnu'], env, { terminal: true });
    expect(upload.code, upload.stderr).toBe(0);
    expect(upload.stderr).toContain('\r[##############################] 100%  1/1 parts');
    expect(upload.stderr).not.toMatch(/^part \d+\/\d+ uploaded/m);
    const created = upload.json.binary;
    expect(created).toMatchObject({ hash: sha256(fs.readFileSync(file)), state: 'signable', signatures: [] });

    const byPair = (await ok(['binary-signatures', 'create', '--binary-prn', created.prn, '--signing-key-pair', 'sigs-ci'])).binary_signature;
    expect(byPair).toMatchObject({ binary_prn: created.prn, signing_key_prn: localKey.prn });
    expect(verifyBinarySignature(localKey.value, created.hash, byPair.signature)).toBe(true);
    expect((await ok(['binaries', 'get', created.prn])).binary.state).toBe('signed');

    const pair = generateSigningKeyPair();
    const givenKey = (await ok(['signing-keys', 'create', '--name', 'sigs-given', '--value', pair.publicKeyValue])).signing_key;
    const wrong = await canopy(['binary-signatures', 'create', '--binary-prn', created.prn, '--signing-key-prn', givenKey.prn, '--signature', signBinaryHash(pair.privateKeyPem, sha256(Buffer.from('other')))], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('invalid_signature');
    const given = (await ok(['binary-signatures', 'create', '--binary-prn', created.prn, '--signing-key-prn', givenKey.prn, '--signature', signBinaryHash(pair.privateKeyPem, created.hash)])).binary_signature;

    expect((await ok(['binaries', 'get', created.prn])).binary.signatures).toEqual(
      expect.arrayContaining([expect.objectContaining({ signing_key_prn: localKey.prn }), expect.objectContaining({ signing_key_prn: givenKey.prn, signature: given.signature })]),
    );

    expect((await canopy(['binary-signatures', 'delete', byPair.prn], env)).code).toBe(0);
    expect((await ok(['binaries', 'get', created.prn])).binary).toMatchObject({ state: 'signed', signatures: [expect.objectContaining({ signing_key_prn: givenKey.prn })] });
    expect((await canopy(['binary-signatures', 'delete', given.prn], env)).code).toBe(0);
    expect((await ok(['binaries', 'get', created.prn])).binary).toMatchObject({ state: 'signable', signatures: [] });
    expect((await canopy(['binary-signatures', 'delete', given.prn], env)).code).toBe(1);

    expect((await ok(['binaries', 'update', created.prn, '--description', 'app image'])).binary.description).toBe('app image');
    expect((await canopy(['binaries', 'delete', created.prn], env)).code).toBe(0);
    expect((await canopy(['binaries', 'get', created.prn], env)).code).toBe(1);
  });

  it('create without a signature or a key pair is a usage error', async () => {
    const run = await canopy(['binary-signatures', 'create', '--binary-prn', 'prn:1:o:binary:b'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--signing-key-pair');
  });
});
