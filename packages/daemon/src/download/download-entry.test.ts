/**
 * The downloader against a real local HTTP server and real files: a binary larger than the flush
 * interval reaches the disk in flushes started during the transfer (so the final fsync is left
 * with the tail only), and a binary that overflows its declared size mid-transfer is refused with
 * no flush left running and no partial file kept.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import type { ManifestEntry } from '@canopy/sdk/device';
import { DownloadError, downloadEntry, finishedPath } from './download-entry.ts';

const BINARY = randomBytes(40 << 20);
const HASH = createHash('sha256').update(BINARY).digest('hex');
let server: http.Server;
let base: string;
let dir: string;

beforeAll(async () => {
  // Sent in 1 MiB writes, as a file server streams it.
  server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-length': BINARY.length });
    let at = 0;
    const next = () => {
      while (at < BINARY.length) {
        const chunk = BINARY.subarray(at, at + (1 << 20));
        at += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', next);
      }
      response.end();
    };
    next();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

const entry = (size: number): ManifestEntry =>
  ({ binary_prn: 'b', artifact: { prn: 'a', name: 'app' }, artifact_version: { prn: 'v', version: '1' }, custom_metadata: null, hash: HASH, size, target: 't', url: `${base}/app.bin`, signatures: [] }) as unknown as ManifestEntry;

/** Counts fdatasync and fsync calls on every FileHandle (Node's class, reached through an instance). */
async function countSyncs() {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-download-'));
  const probe = await fsp.open(path.join(dir, 'probe'), 'w');
  const prototype = Object.getPrototypeOf(probe) as { datasync(): Promise<void>; sync(): Promise<void> };
  await probe.close();
  const calls: string[] = [];
  const datasync = prototype.datasync;
  const sync = prototype.sync;
  vi.spyOn(prototype, 'datasync').mockImplementation(function (this: unknown) {
    calls.push('datasync');
    return datasync.call(this);
  });
  vi.spyOn(prototype, 'sync').mockImplementation(function (this: unknown) {
    calls.push('sync');
    return sync.call(this);
  });
  return calls;
}

it('flushes a large binary to the disk during the transfer, then fsyncs the tail', async () => {
  const calls = await countSyncs();
  const file = await downloadEntry(entry(BINARY.length), { dir, signal: new AbortController().signal });
  expect(file).toBe(finishedPath(dir, entry(BINARY.length)));
  expect(createHash('sha256').update(fs.readFileSync(file)).digest('hex')).toBe(HASH);
  // 40 MiB, a flush every 16 MiB written, one at a time: one or two during the transfer (a
  // slow disk may still be busy with the first at 32 MiB), and the final fsync last.
  expect(calls.at(-1)).toBe('sync');
  expect(calls.slice(0, -1)).toContain('datasync');
  expect(calls.slice(0, -1).every((call) => call === 'datasync') && calls.length <= 3).toBe(true);
});

it('refuses a binary that overflows its declared size mid-transfer, leaving nothing behind', async () => {
  const calls = await countSyncs();
  const declared = (24 << 20) + 5;
  const failure = await downloadEntry(entry(declared), { dir, signal: new AbortController().signal }).catch((error) => error);
  expect(failure).toBeInstanceOf(DownloadError);
  expect(failure).toMatchObject({ kind: 'integrity', message: `binary is larger than its declared size ${declared}` });
  // One flush started after 16 MiB; the partial file is gone, and no fsync made it look finished.
  expect(calls).toEqual(['datasync']);
  expect(fs.readdirSync(dir).filter((name) => name !== 'probe')).toEqual([]);
});
