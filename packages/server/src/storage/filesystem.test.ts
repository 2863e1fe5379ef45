import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { BlobNotFound } from './blob-store';
import { createFilesystemBlobStore } from './filesystem';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-fs-store-'));
const store = createFilesystemBlobStore(root);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const read = async (stream: Readable) => Buffer.concat(await stream.toArray());

describe('filesystem blob store', () => {
  it('leaves nothing under the key when a put fails half-way', async () => {
    async function* failing() {
      yield Buffer.from('half');
      throw new Error('client went away');
    }
    await expect(store.put('a/b', Readable.from(failing()))).rejects.toThrow('client went away');
    expect(await store.size('a/b')).toBeNull();
    await expect(store.get('a/b')).rejects.toBeInstanceOf(BlobNotFound);
    expect(fs.readdirSync(path.join(root, '.incoming'))).toEqual([]);
  });

  it('reads a concatenation whole and by ranges that cross its sources', async () => {
    await store.put('p/1', Readable.from([Buffer.from('hello ')]));
    await store.put('p/2', Readable.from([Buffer.from('wide ')]));
    await store.put('p/3', Readable.from([Buffer.from('world')]));
    await store.concat('whole', ['p/1', 'p/2', 'p/3'], 16);
    expect(await store.size('whole')).toBe(16);
    expect((await read(await store.get('whole'))).toString()).toBe('hello wide world');
    expect((await read(await store.get('whole', { start: 4, end: 12 }))).toString()).toBe('o wide wo');
    expect((await read(await store.get('whole', { start: 11, end: 15 }))).toString()).toBe('world');
    await store.delete('whole');
    expect(await store.size('whole')).toBeNull();
    await expect(store.concat('again', ['p/1', 'p/missing'], 0)).rejects.toBeInstanceOf(BlobNotFound);
  });

  it('refuses keys that could leave the root', async () => {
    await expect(store.put('../escape', Readable.from([Buffer.from('x')]))).rejects.toThrow('unsafe blob key');
    await expect(store.get('a/../../etc/passwd')).rejects.toThrow('unsafe blob key');
  });

  it("keeps another running process's puts in progress at start, and removes a dead one's", () => {
    // Two servers may share one data directory: a start must not wipe the other's temp files.
    const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-fs-shared-'));
    try {
      const incoming = path.join(shared, '.incoming');
      fs.mkdirSync(incoming);
      const exited = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
      const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
      const names = { dead: `put-${exited}-${uuid}.tmp`, own: `put-${process.pid}-${uuid}.tmp`, live: `put-${process.ppid}-${uuid}.tmp` };
      for (const name of Object.values(names)) fs.writeFileSync(path.join(incoming, name), 'x');
      createFilesystemBlobStore(shared);
      expect(fs.readdirSync(incoming)).toEqual([names.live]);
    } finally {
      fs.rmSync(shared, { recursive: true, force: true });
    }
  });
});
