import { describe, expect, it } from 'vitest';
import { expectFieldError, expectReadOnlyForReadKey, withType } from '../support/resource-checks';
import { bytesOf, createArtifactVersion, ed25519Keypair, MiB, putBytes, sha256, signHash, uploadedBinary } from '../support/binaries';
import { useTestServer } from '../support/server';

const t = useTestServer();
const HASH = 'a'.repeat(64);

async function newBinary(body: Record<string, unknown> = {}) {
  const version = await createArtifactVersion(t.api);
  return t.api('POST', '/binaries', { artifact_version_prn: version.prn, hash: HASH, size: 10, target: 'arm', ...body });
}

describe('binaries: fields and rules', () => {
  it('creates a binary with every field and a caller id', async () => {
    const id = '3d5e7f90-1a2b-4c3d-8e4f-5a6b7c8d9e0f';
    const res = await newBinary({ id, description: 'build 7', custom_metadata: { ci: 42 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.binary).toMatchObject({ hash: HASH, size: 10, target: 'arm', description: 'build 7', custom_metadata: { ci: 42 }, state: 'uploadable', revision: 1, signatures: [], hash_error: null });
    expect(res.body.binary.prn).toBe(`prn:1:${t.organizationId}:binary:${id}`);
    expect((await newBinary({ id })).status).toBe(409);
  });

  it('validates hash, size, target, description and custom_metadata, naming the field', async () => {
    expectFieldError(await newBinary({ hash: 'A'.repeat(64) }), 'hash', 'invalid_format');
    expectFieldError(await newBinary({ hash: 'a'.repeat(63) }), 'hash', 'invalid_format');
    expectFieldError(await newBinary({ size: -1 }), 'size', 'out_of_range');
    expectFieldError(await newBinary({ size: 53_687_091_200_001 }), 'size', 'out_of_range');
    expect((await newBinary({ size: 53_687_091_200_000 })).status).toBe(201);
    expectFieldError(await newBinary({ target: '' }), 'target', 'too_short');
    expectFieldError(await newBinary({ target: 'x'.repeat(129) }), 'target', 'too_long');
    expectFieldError(await newBinary({ description: 'x'.repeat(257) }), 'description', 'too_long');
    expectFieldError(await newBinary({ custom_metadata: { blob: 'x'.repeat(1_000_001) } }), 'custom_metadata', 'too_large');
    expectFieldError(await newBinary({ artifact_version_prn: withType(`prn:1:${t.organizationId}:artifact_version:3d5e7f90-1a2b-4c3d-8e4f-5a6b7c8d9e0f`, 'artifact_version') }), 'artifact_version_prn', 'not_found');
  });

  it('allows one live binary per (artifact version, target), again once destroyed', async () => {
    const version = await createArtifactVersion(t.api);
    const body = { artifact_version_prn: version.prn, hash: HASH, size: 10, target: 'arm' };
    const first = await t.api('POST', '/binaries', body);
    expectFieldError(await t.api('POST', '/binaries', body), 'target', 'taken');
    expect((await t.api('POST', '/binaries', { ...body, target: 'x86' })).status).toBe(201);
    await t.api('PATCH', `/binaries/${first.body.binary.prn}`, { state: 'destroyed' });
    expect((await t.api('POST', '/binaries', body)).status).toBe(201);
  });

  it('lists with search and hides other organizations', async () => {
    const mine = (await newBinary({ target: 'riscv64-search' })).body.binary;
    const found = await t.api('GET', `/binaries?search=${encodeURIComponent("target:'riscv64-search'")}`);
    expect(found.body.binaries.map((b: any) => b.prn)).toEqual([mine.prn]);
    expect((await t.api('GET', `/binaries?search=${encodeURIComponent("colour:'red'")}`)).status).toBe(400);
    const other = await t.createOrganization();
    expect((await other.api('GET', `/binaries/${mine.prn}`)).status).toBe(404);
    expect((await other.api('PATCH', `/binaries/${mine.prn}`, { state: 'destroyed' })).status).toBe(404);
    expect((await other.api('GET', `/binaries/${mine.prn}/parts`)).status).toBe(404);
    expect((await other.api('GET', '/binaries?limit=100')).body.binaries).toEqual([]);
    expect((await t.api('GET', `/binaries/${withType(mine.prn, 'product')}`)).status).toBe(404);
  });

  it('keeps target and artifact version immutable, and hash/size outside uploadable', async () => {
    const b = (await newBinary()).body.binary;
    expectFieldError(await t.api('PATCH', `/binaries/${b.prn}`, { target: 'other' }), 'target', 'immutable');
    expect((await t.api('PATCH', `/binaries/${b.prn}`, { ...b, description: 'ok' })).status).toBe(200);
    expect((await t.api('PATCH', `/binaries/${b.prn}`, { size: 0, hash: sha256(Buffer.alloc(0)) })).body.binary).toMatchObject({ size: 0 });
    await t.api('PATCH', `/binaries/${b.prn}`, { state: 'hashable' });
    expectFieldError(await t.api('PATCH', `/binaries/${b.prn}`, { size: 5 }), 'size', 'immutable_in_state');
  });
});

describe('binaries: roles and deletion', () => {
  it('lets a read key list but not create', async () => {
    const version = await createArtifactVersion(t.api);
    await expectReadOnlyForReadKey(t, '/binaries', 'binaries', { artifact_version_prn: version.prn, hash: HASH, size: 1, target: 'role-check' });
  });

  it('deletes a binary with its parts, and holds its artifact version while it exists', async () => {
    const { prn, versionPrn } = await uploadedBinary(t.api, bytesOf(100));
    expect((await t.api('DELETE', `/artifact_versions/${versionPrn}`)).status).toBe(409);
    expect((await t.api('DELETE', `/binaries/${prn}`)).status).toBe(204);
    expect((await t.api('GET', `/binaries/${prn}`)).status).toBe(404);
    expect((await t.api('GET', `/binaries/${prn}/parts`)).status).toBe(404);
    expect((await t.api('DELETE', `/artifact_versions/${versionPrn}`)).status).toBe(204);
  });
});

describe('parts', () => {
  it('validates index, sizes and hash, and the binary state', async () => {
    const b = (await newBinary({ size: 20 * MiB })).body.binary;
    const part = { expected_binary_size: 20 * MiB, hash: HASH, size: 5 * MiB };
    expect((await t.api('PUT', `/binaries/${b.prn}/parts/0`, part)).status).toBe(400);
    expect((await t.api('PUT', `/binaries/${b.prn}/parts/10001`, part)).status).toBe(400);
    expect((await t.api('PUT', `/binaries/${b.prn}/parts/10000`, part)).status).toBe(201);
    expectFieldError(await t.api('PUT', `/binaries/${b.prn}/parts/1`, { ...part, expected_binary_size: 1 }), 'expected_binary_size', 'mismatch');
    expectFieldError(await t.api('PUT', `/binaries/${b.prn}/parts/1`, { ...part, size: 5 * 1024 * MiB + 1 }), 'size', 'out_of_range');
    expectFieldError(await t.api('PUT', `/binaries/${b.prn}/parts/1`, { ...part, hash: 'nothex' }), 'hash', 'invalid_format');
    await t.api('PATCH', `/binaries/${b.prn}`, { state: 'destroyed' });
    const refused = await t.api('PUT', `/binaries/${b.prn}/parts/1`, part);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toMatchObject({ code: 'binary_not_uploadable', context: { current_state: 'destroyed' } });
  });

  it('marks wrong bytes invalid_size / invalid_hash, stops an over-long body, and replaces an index', async () => {
    const bytes = bytesOf(1000);
    const b = (await newBinary({ size: 1000, hash: sha256(bytes) })).body.binary;
    const declare = async (hash = sha256(bytes)) => (await t.api('PUT', `/binaries/${b.prn}/parts/1`, { expected_binary_size: 1000, hash, size: 1000 })).body.binary_part;
    const state = async () => (await t.api('GET', `/binaries/${b.prn}/parts`)).body.binary_parts[0].state;

    const short = await putBytes((await declare()).presigned_upload_url, bytes.subarray(0, 999));
    expect(short.status).toBe(422);
    expect(await state()).toBe('invalid_size');

    const wrongHash = await putBytes((await declare(HASH)).presigned_upload_url, bytes);
    expect(wrongHash.body.errors[0].context).toMatchObject({ field: 'body', reason: 'hash_mismatch' });
    expect(await state()).toBe('invalid_hash');

    const badChecksum = await putBytes((await declare()).presigned_upload_url, bytes, { 'x-amz-checksum-sha256': Buffer.alloc(32).toString('base64') });
    expect(badChecksum.status).toBe(422);

    const long = await putBytes((await declare()).presigned_upload_url, bytesOf(3 * MiB)).catch(() => ({ status: 'reset' }));
    expect([413, 'reset']).toContain(long.status);
    expect(await state()).toBe('invalid_size');

    const stale = await declare();
    const fresh = await declare();
    expect((await putBytes(stale.presigned_upload_url, bytes)).status).toBe(404);
    expect((await putBytes(fresh.presigned_upload_url, bytes)).status).toBe(200);
    expect(await state()).toBe('valid');
    expect((await t.api('GET', `/binaries/${b.prn}/parts`)).body.binary_parts).toHaveLength(1);
  });

  it('refuses a tampered or expired upload URL with 403', async () => {
    const b = (await newBinary({ size: 10 })).body.binary;
    const url = new URL((await t.api('PUT', `/binaries/${b.prn}/parts/1`, { expected_binary_size: 10, hash: HASH, size: 10 })).body.binary_part.presigned_upload_url);
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 1));
    expect((await putBytes(tampered.toString(), Buffer.alloc(10))).status).toBe(403);
    const expired = t.server.platform.urls.sign('upload', url.pathname, -1);
    expect((await putBytes(expired, Buffer.alloc(10))).status).toBe(403);
  });
});

describe('the state machine', () => {
  const move = (prn: string, state: string) => t.api('PATCH', `/binaries/${prn}`, { state });
  const expectRefused = async (prn: string, from: string, to: string) => {
    const res = await move(prn, to);
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.errors[0]).toMatchObject({ code: 'invalid_state_transition', context: { current_state: from, requested_state: to } });
  };

  it('refuses every move the contract does not allow', async () => {
    const b = (await newBinary()).body.binary;
    for (const to of ['hashing', 'signable', 'signed']) await expectRefused(b.prn, 'uploadable', to);
    const noParts = await move(b.prn, 'hashable');
    expect(noParts.body.errors[0].context).toMatchObject({ reason: 'size_mismatch' });
    await t.api('PATCH', `/binaries/${b.prn}`, { size: 0, hash: sha256(Buffer.alloc(0)) });
    expect((await move(b.prn, 'hashable')).body.binary.state).toBe('hashable');
    for (const to of ['signable', 'signed']) await expectRefused(b.prn, 'hashable', to);
    expect((await move(b.prn, 'hashable')).status).toBe(200); // same state: no-op
  });

  it('refuses hashable while a part is missing, invalid or too small', async () => {
    const bytes = bytesOf(6 * MiB);
    const { prn } = await uploadedBinary(t.api, bytes, { partSize: 1 * MiB });
    const res = await move(prn, 'hashable');
    expect(res.body.errors[0].context).toMatchObject({ current_state: 'uploadable', requested_state: 'hashable', reason: 'part_too_small', index: 1 });
  });

  it('hashes to signable, resets with revision + 1, and destroys for good', async () => {
    const bytes = bytesOf(5 * MiB + 10);
    const { prn, binary } = await uploadedBinary(t.api, bytes, { until: 'signable' });
    expect(binary.state).toBe('signable');
    await expectRefused(prn, 'signable', 'hashing');
    const reset = await move(prn, 'uploadable');
    expect(reset.body.binary).toMatchObject({ state: 'uploadable', revision: 2 });
    expect((await t.api('GET', `/binaries/${prn}/parts`)).body.binary_parts).toEqual([]);
    expect((await t.api('GET', `/binaries/${prn}/download_url`)).status).toBe(409);
    expect((await move(prn, 'destroyed')).body.binary.state).toBe('destroyed');
    for (const to of ['uploadable', 'hashable', 'signed']) await expectRefused(prn, 'destroyed', to);
    expect((await t.api('PATCH', `/binaries/${prn}`, { description: 'no' })).status).toBe(409);
  });

  it('sends a binary whose bytes do not match its hash back to hashable with the reason', async () => {
    const bytes = bytesOf(1000);
    const { prn, binary } = await uploadedBinary(t.api, bytes, { until: 'signable', hash: HASH });
    expect(binary.state).toBe('hashable');
    expect(binary.hash_error).toMatch(/^hash_mismatch/);
    expect((await move(prn, 'uploadable')).body.binary.hash_error).toBeNull();
  });
});

describe('signatures', () => {
  it('checks the signature, the state and the key, and lists with search', async () => {
    const keypair = ed25519Keypair();
    const key = (await t.api('POST', '/signing_keys', { name: 'k', value: keypair.value })).body.signing_key;
    const early = await newBinary();
    const refused = await t.api('POST', '/binary_signatures', { binary_prn: early.body.binary.prn, signing_key_prn: key.prn, signature: signHash(keypair.privateKey, HASH) });
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toMatchObject({ code: 'binary_not_signable', context: { current_state: 'uploadable' } });

    const { prn, binary } = await uploadedBinary(t.api, bytesOf(100), { until: 'signable' });
    const body = { binary_prn: prn, signing_key_prn: key.prn, signature: signHash(keypair.privateKey, binary.hash) };
    expectFieldError(await t.api('POST', '/binary_signatures', { ...body, signature: signHash(keypair.privateKey, HASH) }), 'signature', 'invalid_signature');
    expectFieldError(await t.api('POST', '/binary_signatures', { ...body, signature: 'zz' }), 'signature', 'invalid_format');

    const other = await t.createOrganization();
    const theirKey = (await other.api('POST', '/signing_keys', { name: 'theirs', value: ed25519Keypair().value })).body.signing_key;
    expectFieldError(await t.api('POST', '/binary_signatures', { ...body, signing_key_prn: theirKey.prn }), 'signing_key_prn', 'not_found');
    expectFieldError(await other.api('POST', '/binary_signatures', { ...body, signing_key_prn: theirKey.prn }), 'binary_prn', 'not_found');

    const created = await t.api('POST', '/binary_signatures', body);
    expect(created.status).toBe(201);
    expect((await t.api('GET', `/binaries/${prn}`)).body.binary.state).toBe('signed');
    expectFieldError(await t.api('POST', '/binary_signatures', body), 'signing_key_prn', 'taken');
    expect((await t.api('PATCH', `/binaries/${prn}`, { state: 'signed' })).status).toBe(200); // no-op

    const listed = await t.api('GET', `/binary_signatures?search=${encodeURIComponent(`binary_prn:'${prn}'`)}`);
    expect(listed.body.binary_signatures.map((s: any) => s.prn)).toEqual([created.body.binary_signature.prn]);
    expect((await other.api('GET', '/binary_signatures')).body.binary_signatures).toEqual([]);
    expect((await other.api('DELETE', `/binary_signatures/${created.body.binary_signature.prn}`)).status).toBe(404);

    expect((await t.api('DELETE', `/binary_signatures/${created.body.binary_signature.prn}`)).status).toBe(204);
    expect((await t.api('GET', `/binaries/${prn}`)).body.binary).toMatchObject({ state: 'signable', signatures: [] });
  });
});

describe('downloads', () => {
  it('answers 403 to a tampered or expired URL, 416 past the end, 409 before signable', async () => {
    const bytes = bytesOf(1000);
    const { prn } = await uploadedBinary(t.api, bytes, { until: 'signable' });
    const url = new URL((await t.api('GET', `/binaries/${prn}/download_url`)).body.download_url);
    expect(Number(url.searchParams.get('expires')) - Date.now() / 1000).toBeGreaterThan(24 * 3600 - 60);
    const signature = url.searchParams.get('signature')!;
    const tampered = new URL(url);
    tampered.searchParams.set('signature', (signature[0] === '0' ? '1' : '0') + signature.slice(1));
    expect((await fetch(tampered)).status).toBe(403);
    const otherPath = new URL(url);
    otherPath.pathname = otherPath.pathname.replace(/r1$/, 'r2');
    expect((await fetch(otherPath)).status).toBe(403);
    expect((await fetch(t.server.platform.urls.sign('download', url.pathname, -1))).status).toBe(403);
    expect((await fetch(url, { headers: { range: 'bytes=5000-' } })).status).toBe(416);
    const middle = await fetch(url, { headers: { range: 'bytes=10-19' } });
    expect(middle.status).toBe(206);
    expect(Buffer.from(await middle.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);
    expect((await t.api('GET', `/binaries/${(await newBinary()).body.binary.prn}/download_url`)).status).toBe(409);
  });
});
