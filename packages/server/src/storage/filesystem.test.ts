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
});
