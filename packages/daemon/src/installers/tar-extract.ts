/**
 * Unpacks a tar archive (plain, gzip, zstd or xz) into an empty directory, refusing any entry
 * that could write or point outside it. The tar format is read by tar-stream; gzip by Node's
 * zlib, zstd and xz by Debian's `zstd` and `xz` (Node 20's zlib has neither). The rules, and why
 * not GNU tar, are in docs/decisions/005-daemon-installers.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract, type Header } from 'tar-stream';

export interface Ownership {
  uid?: number;
  gid?: number;
  /** Cleared from every entry's permission bits (set-id and sticky bits are always dropped). */
  umask: number;
}

export class UnsafeArchiveError extends Error {}

/** Which decompressor the first bytes call for; null: a plain tar (or not an archive at all). */
export async function compressionOf(file: string): Promise<'gzip' | 'zstd' | 'xz' | null> {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(6);
    await handle.read(head, 0, 6, 0);
    if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
    if (head.readUInt32LE(0) === 0xfd2fb528) return 'zstd';
    if (head.equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) return 'xz';
    return null;
  } finally {
    await handle.close();
  }
}

/** The archive's tar stream, decompressed; `child` is the external decompressor, if one runs. */
async function tarStream(file: string): Promise<{ stream: Readable; child?: ChildProcess }> {
  const compression = await compressionOf(file);
  if (compression === null) return { stream: createReadStream(file) };
  if (compression === 'gzip') return { stream: createReadStream(file).pipe(createGunzip()) };
  const child = spawn(compression, ['-dc', '--', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  return { stream: child.stdout!, child };
}

/** An entry name as a list of segments inside the root; throws on absolute names and `..`. */
function segmentsOf(name: string, what: string): string[] {
  if (name.startsWith('/')) throw new UnsafeArchiveError(`${what} ${JSON.stringify(name)} is an absolute path`);
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw new UnsafeArchiveError(`${what} ${JSON.stringify(name)} contains ..`);
  return segments;
}

/**
 * Whether symlink `link` (segments) with `target` stays inside the root when resolved against
 * the archive's own symlinks (`links`), as the kernel would resolve it once unpacked.
 */
function resolvesInside(link: string[], target: string, links: ReadonlyMap<string, string>): boolean {
  let hops = 0;
  const walk = (base: string[], text: string): string[] | null => {
    if (text.startsWith('/')) return null;
    const at = [...base];
    for (const segment of text.split('/')) {
      if (segment === '' || segment === '.') continue;
      if (segment === '..') {
        if (at.length === 0) return null;
        at.pop();
        continue;
      }
      at.push(segment);
      const inner = links.get(at.join('/'));
      if (inner !== undefined) {
        if (++hops > 40) return null;
        at.pop();
        const resolved = walk(at, inner);
        if (resolved === null) return null;
        at.splice(0, at.length, ...resolved);
      }
    }
    return at;
  };
  return walk(link.slice(0, -1), target) !== null;
}

const KINDS = new Set(['file', 'contiguous-file', 'directory', 'symlink', 'link']);

/** Unpacks `file` into `root` (an empty directory); nothing is written outside `root`. */
export async function extractArchive(file: string, root: string, owner: Ownership, signal: AbortSignal): Promise<{ entries: number }> {
  const { stream, child } = await tarStream(file);
  let stderr = '';
  child?.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = child ? new Promise<number | null>((resolve) => child.on('close', resolve)) : Promise.resolve(0);
  const parser = extract();
  const links = new Map<string, string>();
  const files = new Set<string>();
  const dirs = new Map<string, Header>();
  const chown = async (at: string) => {
    if (owner.uid !== undefined || owner.gid !== undefined) await fs.lchown(at, owner.uid ?? process.getuid!(), owner.gid ?? process.getgid!());
  };
  const modeOf = (header: Header) => header.mode & 0o777 & ~owner.umask;
  /** Directories the archive implies (parents of its entries) but does not list. */
  const implied = new Set<string>(['']);
  let entries = 0;
  const feeding = pipeline(stream, parser, { signal }).catch((error) => {
    parser.destroy(error);
  });
  try {
    for await (const entry of parser) {
      signal.throwIfAborted();
      const header = entry.header;
      if (!KINDS.has(header.type)) throw new UnsafeArchiveError(`entry ${JSON.stringify(header.name)} is a ${header.type}; only files, directories and links are unpacked`);
      const segments = segmentsOf(header.name, 'entry');
      const key = segments.join('/');
      entries += 1;
      // No entry may be written through a symlink of the archive: its parent must be a real directory.
      for (let i = 1; i <= segments.length; i++) {
        const prefix = segments.slice(0, i).join('/');
        if (links.has(prefix) && (i < segments.length || header.type !== 'symlink')) {
          throw new UnsafeArchiveError(`entry ${JSON.stringify(header.name)} goes through or replaces the symlink ${prefix}`);
        }
      }
      if (files.has(key) || dirs.has(key)) throw new UnsafeArchiveError(`entry ${JSON.stringify(header.name)} appears twice`);
      const at = path.join(root, ...segments);
      for (let i = 1; i < segments.length; i++) implied.add(segments.slice(0, i).join('/'));
      if (segments.length > 1) await fs.mkdir(path.dirname(at), { recursive: true, mode: 0o700 });
      if (header.type === 'directory') {
        if (segments.length > 0) await fs.mkdir(at, { recursive: true, mode: 0o700 });
        dirs.set(key, header);
        entry.resume();
        continue;
      }
      if (segments.length === 0) throw new UnsafeArchiveError(`entry ${JSON.stringify(header.name)} names the root as a ${header.type}`);
      if (header.type === 'symlink') {
        if (!resolvesInside(segments, header.linkname, links)) throw new UnsafeArchiveError(`symlink ${JSON.stringify(header.name)} points outside the target (${header.linkname})`);
        links.set(key, header.linkname);
        await fs.symlink(header.linkname, at);
        await chown(at);
        entry.resume();
        continue;
      }
      if (header.type === 'link') {
        const target = segmentsOf(header.linkname, 'hard link target').join('/');
        if (!files.has(target)) throw new UnsafeArchiveError(`hard link ${JSON.stringify(header.name)} points to ${JSON.stringify(header.linkname)}, not a file unpacked before it`);
        await fs.link(path.join(root, target), at);
        files.add(key);
        entry.resume();
        continue;
      }
      const handle = await fs.open(at, 'wx', 0o600);
      try {
        for await (const chunk of entry) {
          signal.throwIfAborted();
          const bytes = chunk as Buffer;
          for (let done = 0; done < bytes.length; ) done += (await handle.write(bytes, done)).bytesWritten;
        }
        await handle.chmod(modeOf(header));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await chown(at);
      await fs.utimes(at, header.mtime, header.mtime);
      files.add(key);
    }
    await feeding;
    const code = await exited;
    if (code !== 0) throw new Error(`decompression failed: ${stderr.trim().split('\n').at(-1) ?? `exit ${code}`}`);
    // A later symlink can change where an earlier one leads: check them all against the final set.
    for (const [link, target] of links) {
      if (!resolvesInside(link.split('/'), target, links)) throw new UnsafeArchiveError(`symlink ${JSON.stringify(link)} points outside the target (${target})`);
    }
    // Directories get their modes last, deepest first, so a read-only one took its files first.
    for (const [key, header] of [...dirs].sort((a, b) => b[0].length - a[0].length)) {
      const at = key === '' ? root : path.join(root, key);
      await fs.chmod(at, modeOf(header));
      await chown(at);
      await fs.utimes(at, header.mtime, header.mtime);
    }
    for (const key of [...implied].filter((k) => !dirs.has(k)).sort((a, b) => b.length - a.length)) {
      const at = key === '' ? root : path.join(root, key);
      await fs.chmod(at, 0o777 & ~owner.umask);
      await chown(at);
    }
    return { entries };
  } catch (error) {
    stream.destroy();
    child?.kill('SIGKILL');
    throw error;
  }
}
