import { describe, expect, it } from 'vitest';
import { bytesOf, createArtifactVersion, eventually, MiB, putBytes, sha256 } from '../support/binaries';
import { useTestServer } from '../support/server';

const t = useTestServer();

describe('binary upload flow (filesystem store)', () => {
  it('goes create -> parts -> hashable -> hashing -> signable and downloads the same bytes, with Range', async () => {
    const version = await createArtifactVersion(t);
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

    const { body } = await t.api('GET', `/binaries/${binary.prn}/download_url`);
    const whole = await fetch(body.download_url);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const tail = await fetch(body.download_url, { headers: { range: 'bytes=100-' } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes 100-${bytes.length - 1}/${bytes.length}`);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(100))).toBe(true);
  });
});
