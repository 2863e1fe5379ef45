/**
 * A part's upload URL stays valid for a day, so it can be replayed after its binary moved on.
 * A refused write must change nothing: after signing (and while the upload is locked for
 * hashing) a PUT to an old part URL is refused and the binary still downloads as the bytes its
 * hash and signature vouch for, on both stores. Also: a part PUT racing the start of hashing.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_HANDLERS } from '../../src/workers/handlers';
import { createJobRunner } from '../../src/workers/runner';
import type { BlobStore } from '../../src/storage/blob-store';
import { bytesOf, ed25519Keypair, eventually, MiB, putBytes, sha256, signHash, uploadedBinary } from '../support/binaries';
import { startTestS3, type TestS3 } from '../support/s3';
import { startTestServer, useTestServer, type TestServer } from '../support/server';

async function sign(t: TestServer, prn: string, hash: string) {
  const keypair = ed25519Keypair();
  const key = (await t.api('POST', '/signing_keys', { name: `key ${prn.slice(-6)}`, value: keypair.value })).body.signing_key;
  const signed = await t.api('POST', '/binary_signatures', { binary_prn: prn, signing_key_prn: key.prn, signature: signHash(keypair.privateKey, hash) });
  expect(signed.status, JSON.stringify(signed.body)).toBe(201);
}

async function downloaded(t: TestServer, prn: string): Promise<Buffer> {
  const { body } = await t.api('GET', `/binaries/${prn}/download_url`);
  const response = await fetch(body.download_url);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** A PUT whose body goes in two halves: `between` runs after the first half is sent. */
function putInTwoHalves(url: string, bytes: Buffer, between: () => Promise<void>): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'PUT', headers: { 'content-length': String(bytes.length) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
    });
    request.on('error', reject);
    const half = Math.floor(bytes.length / 2);
    request.write(bytes.subarray(0, half));
    between().then(
      () => request.end(bytes.subarray(half)),
      (error) => {
        request.destroy();
        reject(error);
      },
    );
  });
}

describe('replayed part uploads on the filesystem store', () => {
  const t = useTestServer();
  const incomingFiles = () => {
    const { blobStore } = t.config;
    return blobStore.kind === 'filesystem' ? fs.readdirSync(path.join(blobStore.root, '.incoming')) : [];
  };
  const bytes = bytesOf(5 * MiB + 1000);
  const parts = [bytes.subarray(0, 5 * MiB), bytes.subarray(5 * MiB)];

  it('refuses a part PUT after signing with 409 and the download still answers the signed bytes', async () => {
    const { prn, partUrls } = await uploadedBinary(t.api, bytes, { until: 'signable' });
    await sign(t, prn, sha256(bytes));
    const refusals = [];
    for (const [i, url] of partUrls.entries()) {
      for (const replay of [bytesOf(parts[i].length), parts[i]]) refusals.push(await putBytes(url, replay));
    }
    expect(refusals.map((r) => r.status)).toEqual([409, 409, 409, 409]);
    const got = await downloaded(t, prn);
    expect(sha256(got)).toBe(sha256(bytes));
    expect(got.equals(bytes)).toBe(true);
    expect(refusals[0].body.errors).toEqual([{ code: 'binary_not_uploadable', context: { current_state: 'signed', required_state: 'uploadable' } }]);
    expect((await t.api('GET', `/binaries/${prn}/parts`)).body.binary_parts.map((p: any) => p.state)).toEqual(['valid', 'valid']);
  });

  it('refuses a part PUT while the upload is locked (hashable) and the binary still hashes to the right bytes', async () => {
    const { prn, partUrls } = await uploadedBinary(t.api, bytes, { until: 'hashable' });
    expect((await putBytes(partUrls[1], bytesOf(parts[1].length))).status).toBe(409);
    expect((await putBytes(partUrls[1], parts[1])).status).toBe(409);
    expect((await t.api('PATCH', `/binaries/${prn}`, { state: 'hashing' })).status).toBe(200);
    await eventually(async () => (await t.api('GET', `/binaries/${prn}`)).body.binary.state !== 'hashing');
    expect((await t.api('GET', `/binaries/${prn}`)).body.binary).toMatchObject({ state: 'signable', hash_error: null });
    expect((await downloaded(t, prn)).equals(bytes)).toBe(true);
  });

  it('refuses a part PUT that was under way when hashing started, without touching the stored part', async () => {
    const { prn, partUrls } = await uploadedBinary(t.api, bytes);
    const raced = await putInTwoHalves(partUrls[0], parts[0], async () => {
      // The server is past its checks and storing the first half.
      await eventually(async () => incomingFiles().length > 0);
      expect((await t.api('PATCH', `/binaries/${prn}`, { state: 'hashable' })).status).toBe(200);
      expect((await t.api('PATCH', `/binaries/${prn}`, { state: 'hashing' })).status).toBe(200);
      await eventually(async () => (await t.api('GET', `/binaries/${prn}`)).body.binary.state !== 'hashing');
    });
    expect(raced.status, JSON.stringify(raced.body)).toBe(409);
    expect((await t.api('GET', `/binaries/${prn}`)).body.binary).toMatchObject({ state: 'signable', hash_error: null });
    expect((await downloaded(t, prn)).equals(bytes)).toBe(true);
  });

  it('leaves a valid part valid when a replay of other bytes fails its hash', async () => {
    const { prn, partUrls } = await uploadedBinary(t.api, bytes);
    const wrong = await putBytes(partUrls[1], bytesOf(parts[1].length));
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].context).toMatchObject({ reason: 'hash_mismatch', part_state: 'valid' });
    expect((await t.api('GET', `/binaries/${prn}/parts`)).body.binary_parts.map((p: any) => p.state)).toEqual(['valid', 'valid']);
    await t.api('PATCH', `/binaries/${prn}`, { state: 'hashable' });
    await t.api('PATCH', `/binaries/${prn}`, { state: 'hashing' });
    await eventually(async () => (await t.api('GET', `/binaries/${prn}`)).body.binary.state === 'signable');
    expect((await downloaded(t, prn)).equals(bytes)).toBe(true);
  });
});

describe('replayed part uploads on the S3 store', () => {
  let s3: TestS3;
  let t: TestServer;
  beforeAll(async () => {
    s3 = await startTestS3();
    // No workers in the server: the test runs the hashing job itself (below).
    t = await startTestServer({ blobStore: s3.config }, { workers: false });
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });
  const bytes = bytesOf(5 * MiB + 1000);

  it('serves the hashed bytes although the presigned part URL is replayed during hashing and after signing', async () => {
    const { prn, partUrls } = await uploadedBinary(t.api, bytes, { until: 'hashing' });
    const prefix = `binaries/${prn.split(':').pop()}/`;
    // The bucket takes a replay at any time; here part 1 is replaced right after the job first
    // reads bytes of this binary (part 1 is in them): a job that hashed the parts and then
    // copied them would serve the replayed bytes under the hash of the first ones.
    const real = t.server.platform.blobs;
    let replayed = false;
    const replaying: BlobStore = {
      ...real,
      async get(key, range) {
        const read = Buffer.concat(await (await real.get(key, range)).toArray());
        if (key.startsWith(prefix) && !replayed) {
          replayed = true;
          expect((await putBytes(partUrls[0], bytesOf(5 * MiB))).status).toBe(200);
        }
        return Readable.from([read]);
      },
    };
    const runner = createJobRunner({ ...t.server.platform, blobs: replaying }, JOB_HANDLERS, { pollMs: 50 });
    runner.start();
    try {
      await eventually(async () => (await t.api('GET', `/binaries/${prn}`)).body.binary.state !== 'hashing');
    } finally {
      await runner.stop();
    }
    expect(replayed).toBe(true);
    expect((await t.api('GET', `/binaries/${prn}`)).body.binary).toMatchObject({ state: 'signable', hash_error: null });
    await sign(t, prn, sha256(bytes));
    // After signing, the bucket still takes the old URL; the download is a copy of its own.
    expect((await putBytes(partUrls[1], bytesOf(bytes.length - 5 * MiB))).status).toBe(200);
    const got = await downloaded(t, prn);
    expect(sha256(got)).toBe(sha256(bytes));
    expect(got.equals(bytes)).toBe(true);
  });
});
