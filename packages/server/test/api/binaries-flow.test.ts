import { describe, expect, it } from 'vitest';
import { verify } from 'node:crypto';
import { bytesOf, createArtifactVersion, ed25519Keypair, eventually, MiB, putBytes, sha256, signHash } from '../support/binaries';
import { useTestServer } from '../support/server';

const t = useTestServer();

describe('binary upload flow (filesystem store)', () => {
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
  });
});
