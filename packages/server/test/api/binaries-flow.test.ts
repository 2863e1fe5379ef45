/**
 * The whole life of a binary, end to end over HTTP, on both blob stores (and on whichever
 * database the run uses): create -> parts -> hashable -> hashing -> signable -> signed ->
 * download -> the device's checks (bytes, hash, signature).
 */
import { verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, createArtifactVersion, ed25519Keypair, eventually, MiB, putBytes, sha256, signHash } from '../support/binaries';
import { startTestS3, type TestS3 } from '../support/s3';
import { startTestServer, type TestServer } from '../support/server';

describe.each(['filesystem', 's3'] as const)('binary life on the %s store', (store) => {
  let s3: TestS3 | undefined;
  let t: TestServer;
  beforeAll(async () => {
    s3 = store === 's3' ? await startTestS3() : undefined;
    t = await startTestServer(s3 ? { blobStore: s3.config } : {});
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it('goes create -> parts -> hashable -> hashing -> signable -> signed and downloads the same bytes, with Range', async () => {
    const version = await createArtifactVersion(t.api);
    const bytes = bytesOf(5 * MiB + 1234);
    const parts = [bytes.subarray(0, 5 * MiB), bytes.subarray(5 * MiB)];
    const created = await t.api('POST', '/binaries', { artifact_version_prn: version.prn, hash: sha256(bytes), size: bytes.length, target: 'x86_64-linux' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const binary = created.body.binary;
    expect(binary).toMatchObject({ state: 'uploadable', revision: 1, signatures: [], size: bytes.length });

    for (const [i, part] of parts.entries()) {
      const put = await t.api('PUT', `/binaries/${binary.prn}/parts/${i + 1}`, { expected_binary_size: bytes.length, hash: sha256(part), size: part.length });
      expect(put.status, JSON.stringify(put.body)).toBe(201);
      expect(put.body.binary_part).toMatchObject({ index: i + 1, state: 'uploadable' });
      if (store === 's3') expect(put.body.binary_part.presigned_upload_url).toContain(s3!.config.endpoint!);
      const uploaded = await putBytes(put.body.binary_part.presigned_upload_url, part);
      expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
    }
    const listed = await t.api('GET', `/binaries/${binary.prn}/parts`);
    expect(listed.body.binary_parts.map((p: any) => p.state)).toEqual(['valid', 'valid']);

    expect((await t.api('PATCH', `/binaries/${binary.prn}`, { state: 'hashable' })).body.binary.state).toBe('hashable');
    expect((await t.api('PATCH', `/binaries/${binary.prn}`, { state: 'hashing' })).body.binary.state).toBe('hashing');
    await eventually(async () => (await t.api('GET', `/binaries/${binary.prn}`)).body.binary.state === 'signable');

    const keypair = ed25519Keypair();
    const key = (await t.api('POST', '/signing_keys', { name: 'release key', value: keypair.value })).body.signing_key;
    const signature = signHash(keypair.privateKey, binary.hash);
    const signed = await t.api('POST', '/binary_signatures', { binary_prn: binary.prn, signing_key_prn: key.prn, signature: signature.toUpperCase() });
    expect(signed.status, JSON.stringify(signed.body)).toBe(201);
    const afterSigning = (await t.api('GET', `/binaries/${binary.prn}`)).body.binary;
    expect(afterSigning).toMatchObject({ state: 'signed', signatures: [{ signature, signing_key_prn: key.prn }] });

    const { body } = await t.api('GET', `/binaries/${binary.prn}/download_url`);
    const whole = await fetch(body.download_url);
    expect(whole.status).toBe(200);
    const downloaded = Buffer.from(await whole.arrayBuffer());
    expect(downloaded.equals(bytes)).toBe(true);
    // What a device does: hash what it got and check the signature over that hash.
    expect(verify(null, Buffer.from(sha256(downloaded), 'ascii'), keypair.publicKey, Buffer.from(afterSigning.signatures[0].signature, 'hex'))).toBe(true);
    const tail = await fetch(body.download_url, { headers: { range: 'bytes=100-' } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes 100-${bytes.length - 1}/${bytes.length}`);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(100))).toBe(true);

    // s3rver does not check presigned signatures (AWS does), so only our own URLs are tested here.
    if (store === 'filesystem') {
      const tampered = new URL(body.download_url);
      const original = tampered.searchParams.get('signature')!;
      tampered.searchParams.set('signature', (original[0] === '0' ? '1' : '0') + original.slice(1));
      expect((await fetch(tampered)).status).toBe(403);
    }

    // Destroying deletes the bytes (in the background purge job).
    expect((await t.api('PATCH', `/binaries/${binary.prn}`, { state: 'destroyed' })).body.binary.state).toBe('destroyed');
    await eventually(async () => (await fetch(body.download_url)).status !== 200);
  });

  it('marks a part of the wrong length invalid_size', async () => {
    const version = await createArtifactVersion(t.api);
    const bytes = bytesOf(1000);
    const created = (await t.api('POST', '/binaries', { artifact_version_prn: version.prn, hash: sha256(bytes), size: 1000, target: 'arm' })).body.binary;
    const put = await t.api('PUT', `/binaries/${created.prn}/parts/1`, { expected_binary_size: 1000, hash: sha256(bytes), size: 1000 });
    // The filesystem store refuses it at once (422); with S3 the server finds out by looking.
    await putBytes(put.body.binary_part.presigned_upload_url, bytes.subarray(0, 999)).catch(() => undefined);
    const parts = (await t.api('GET', `/binaries/${created.prn}/parts`)).body.binary_parts;
    expect(parts[0].state).toBe('invalid_size');
    expect((await t.api('PATCH', `/binaries/${created.prn}`, { state: 'hashable' })).status).toBe(409);
  });
});
