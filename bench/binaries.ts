/**
 * Issue 3's benchmark: upload a binary (2 GiB by default; BENCH_BINARY_MB to change) in 16 MiB
 * parts through the HTTP API to the filesystem store, 4 parts in flight, then hash it on the
 * server. Printed beside `dd` (copying the same file) and `sha256sum` (hashing it), measured in
 * the same run on the same disk. Targets: upload >= 50% of dd, hashing >= 70% of sha256sum,
 * server peak RSS < 250 MB whatever the size.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startCanopy } from './lib/canopy';
import { withDatabase } from './lib/postgres';

const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_BINARY_MB ?? 2048) * MiB;
const PART = 16 * MiB;
const IN_FLIGHT = 4;

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const mbps = (bytes: number, s: number) => bytes / MiB / s;

/** A file of SIZE random-looking bytes and its SHA-256, written once for every measurement. */
function makeSource(file: string): string {
  const block = randomBytes(PART);
  const hash = createHash('sha256');
  const fd = fs.openSync(file, 'w');
  for (let written = 0; written < SIZE; written += PART) {
    // Vary each block so no layer can deduplicate them.
    block.writeUInt32LE(written / PART, 0);
    const chunk = block.subarray(0, Math.min(PART, SIZE - written));
    fs.writeSync(fd, chunk);
    hash.update(chunk);
  }
  fs.closeSync(fd);
  return hash.digest('hex');
}

function timeCommand(command: string, args: string[]): number {
  const start = process.hrtime.bigint();
  execFileSync(command, args, { stdio: 'ignore' });
  return seconds(start);
}

async function api(base: string, key: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** PUTs bytes [start, end) of the file to url, streaming from disk. */
function putRange(url: string, file: string, start: number, end: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'PUT', headers: { 'content-length': end - start, 'content-type': 'application/octet-stream' } }, (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`part upload answered ${response.statusCode}`))));
    });
    request.on('error', reject);
    fs.createReadStream(file, { start, end: end - 1, highWaterMark: MiB }).pipe(request);
  });
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-binaries-'));
const source = path.join(work, 'source.bin');
try {
  console.log(`writing a ${SIZE / MiB} MiB source file...`);
  const hash = makeSource(source);
  const partHashes: string[] = [];
  for (let offset = 0; offset < SIZE; offset += PART) {
    const chunk = Buffer.alloc(Math.min(PART, SIZE - offset));
    const fd = fs.openSync(source, 'r');
    fs.readSync(fd, chunk, 0, chunk.length, offset);
    fs.closeSync(fd);
    partHashes.push(createHash('sha256').update(chunk).digest('hex'));
  }

  const ddSeconds = timeCommand('dd', [`if=${source}`, `of=${path.join(work, 'dd.bin')}`, 'bs=16M']);
  fs.rmSync(path.join(work, 'dd.bin'));
  const shaSeconds = timeCommand('sha256sum', [source]);

  await withDatabase(async (databaseUrl) => {
    const canopy = await startCanopy(databaseUrl, { CANOPY_DATA_DIR: path.join(work, 'data') });
    try {
      const call = (method: string, url: string, body?: unknown) => api(canopy.url, canopy.apiKey, method, url, body);
      const artifact = (await call('POST', '/artifacts', { name: 'bench' })).artifact;
      const version = (await call('POST', '/artifact_versions', { artifact_prn: artifact.prn, version: '1.0.0' })).artifact_version;
      const binary = (await call('POST', '/binaries', { artifact_version_prn: version.prn, hash, size: SIZE, target: 'bench' })).binary;

      const uploadStart = process.hrtime.bigint();
      let next = 0;
      async function uploader() {
        for (let index = next++; index < partHashes.length; index = next++) {
          const start = index * PART;
          const end = Math.min(start + PART, SIZE);
          const part = (await call('PUT', `/binaries/${binary.prn}/parts/${index + 1}`, { expected_binary_size: SIZE, hash: partHashes[index], size: end - start })).binary_part;
          await putRange(part.presigned_upload_url, source, start, end);
        }
      }
      await Promise.all(Array.from({ length: IN_FLIGHT }, uploader));
      const uploadSeconds = seconds(uploadStart);

      await call('PATCH', `/binaries/${binary.prn}`, { state: 'hashable' });
      const hashStart = process.hrtime.bigint();
      await call('PATCH', `/binaries/${binary.prn}`, { state: 'hashing' });
      let state = 'hashing';
      while (state === 'hashing') {
        await new Promise((r) => setTimeout(r, 50));
        state = (await call('GET', `/binaries/${binary.prn}`)).binary.state;
      }
      const hashSeconds = seconds(hashStart);
      if (state !== 'signable') throw new Error(`hashing ended in ${state}`);

      const upload = mbps(SIZE, uploadSeconds);
      const hashing = mbps(SIZE, hashSeconds);
      const dd = mbps(SIZE, ddSeconds);
      const sha = mbps(SIZE, shaSeconds);
      console.log(`\n${SIZE / MiB} MiB binary, ${PART / MiB} MiB parts, ${IN_FLIGHT} in flight, filesystem store, PostgreSQL`);
      console.log(`upload   ${upload.toFixed(0).padStart(6)} MB/s | dd        ${dd.toFixed(0)} MB/s  ratio ${((upload / dd) * 100).toFixed(1)}% (target >= 50%)`);
      console.log(`hashing  ${hashing.toFixed(0).padStart(6)} MB/s | sha256sum ${sha.toFixed(0)} MB/s  ratio ${((hashing / sha) * 100).toFixed(1)}% (target >= 70%)`);
      console.log(`server peak RSS ${canopy.child.peakRssMb().toFixed(0)} MB (target < 250 MB)`);
    } finally {
      await canopy.child.stop();
    }
  });
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
