import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pack, type Header } from 'tar-stream';
import { extractArchive, UnsafeArchiveError } from './tar-extract.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
const scratch = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-tar-unit-'));
  dirs.push(dir);
  return dir;
};

type Entry = Partial<Header> & { name: string; body?: string };

/** A plain tar of `entries`, written with tar-stream's packer (it writes names as given). */
async function archive(entries: Entry[]): Promise<string> {
  const packer = pack();
  for (const { body, ...header } of entries) packer.entry({ mode: 0o644, ...header }, body ?? '');
  packer.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of packer) chunks.push(chunk as Buffer);
  const file = path.join(scratch(), 'a.tar');
  fs.writeFileSync(file, Buffer.concat(chunks));
  return file;
}

async function unpack(entries: Entry[], umask = 0o022) {
  const root = path.join(scratch(), 'root');
  fs.mkdirSync(root);
  const result = await extractArchive(await archive(entries), root, { umask }, new AbortController().signal).then(
    () => 'ok',
    (error: Error) => (error instanceof UnsafeArchiveError ? `unsafe: ${error.message}` : `error: ${error.message}`),
  );
  return { root, result, outside: fs.readdirSync(path.dirname(root)).filter((n) => n !== 'root') };
}

describe('extractArchive', () => {
  it('unpacks files, directories, links inside the tree, with modes masked by the umask', async () => {
    const { root, result } = await unpack([
      { name: './', type: 'directory', mode: 0o755 },
      { name: 'bin/', type: 'directory', mode: 0o750 },
      { name: 'bin/run', body: '#!/bin/sh\n', mode: 0o4777 },
      { name: 'etc/app.conf', body: 'x=1\n', mode: 0o666 },
      { name: 'etc/current', type: 'symlink', linkname: 'app.conf' },
      { name: 'bin/conf', type: 'symlink', linkname: '../etc' },
      { name: 'run-again', type: 'link', linkname: 'bin/run' },
    ]);
    expect(result).toBe('ok');
    const mode = (p: string) => fs.statSync(path.join(root, p)).mode & 0o7777;
    expect(mode('bin/run')).toBe(0o755); // set-uid dropped, group/other write masked
    expect(mode('etc/app.conf')).toBe(0o644);
    expect(mode('bin')).toBe(0o750);
    expect(mode('etc')).toBe(0o755); // implied by its file, not listed
    expect(fs.readFileSync(path.join(root, 'bin/conf/current'), 'utf8')).toBe('x=1\n');
    expect(fs.statSync(path.join(root, 'run-again')).ino).toBe(fs.statSync(path.join(root, 'bin/run')).ino);
  });

  it.each<[string, Entry[], RegExp]>([
    ['an absolute name', [{ name: '/etc/passwd', body: 'x' }], /absolute path/],
    ['a .. segment', [{ name: 'a/../../escape', body: 'x' }], /contains \.\./],
    ['an absolute symlink', [{ name: 'etc', type: 'symlink', linkname: '/etc' }], /points outside/],
    ['a symlink climbing out', [{ name: 'a/up', type: 'symlink', linkname: '../../x' }], /points outside/],
    ['a symlink out through another symlink', [
      { name: 'here', type: 'symlink', linkname: '.' },
      { name: 'a/out', type: 'symlink', linkname: '../here/..' },
    ], /points outside/],
    ['a symlink made to escape by a later one', [
      { name: 'a/out', type: 'symlink', linkname: '../b/..' },
      { name: 'b', type: 'symlink', linkname: 'a/..' },
    ], /points outside/],
    ['a file written through a symlink', [
      { name: 'dir', type: 'symlink', linkname: '.' },
      { name: 'dir/file', body: 'x' },
    ], /goes through or replaces the symlink dir/],
    ['a hard link to a file outside', [{ name: 'shadow', type: 'link', linkname: '/etc/shadow' }], /absolute path/],
    ['a hard link to a name not unpacked', [{ name: 'l', type: 'link', linkname: 'missing' }], /not a file unpacked before it/],
    ['a device node', [{ name: 'sda', type: 'block-device', devmajor: 8, devminor: 0 }], /block-device/],
    ['a fifo', [{ name: 'pipe', type: 'fifo' }], /fifo/],
    ['the same name twice', [{ name: 'a', body: '1' }, { name: './a', body: '2' }], /appears twice/],
  ])('refuses %s and writes nothing outside', async (_why, entries, reason) => {
    const { result, outside } = await unpack(entries);
    expect(result).toMatch(/^unsafe: /);
    expect(result).toMatch(reason);
    expect(outside).toEqual([]);
  });

  it('fails on a file that is not a tar archive', async () => {
    const root = path.join(scratch(), 'root');
    fs.mkdirSync(root);
    const file = path.join(scratch(), 'junk');
    fs.writeFileSync(file, Buffer.alloc(1024, 7));
    await expect(extractArchive(file, root, { umask: 0o022 }, new AbortController().signal)).rejects.toThrow();
  });
});
