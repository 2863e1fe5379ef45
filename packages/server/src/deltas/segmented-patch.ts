/**
 * Makes a delta between two files as decision 009 describes: a tar of `delta.json` and one
 * `zstd --patch-from` patch per 32 MiB segment of the target, each against the base's bytes
 * around the same offset. Memory stays bounded by one segment and its base window whatever the
 * image size (whole-file --patch-from held ~1.6 GB for 512 MiB). Shells out to Debian's zstd/tar.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { DELTA_FORMAT, type DeltaDescription } from '@canopy/sdk/delta-format';

export { DELTA_FORMAT, type DeltaDescription };

const run = promisify(execFile);
const MiB = 1024 * 1024;

export const SEGMENT_BYTES = 32 * MiB;
export const MARGIN_BYTES = 8 * MiB;
/** 2^26 = 64 MiB: covers a segment plus its base window (48 MiB). */
export const WINDOW_LOG = 26;


export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/** Copies bytes [start, end) of `from` to a new file `to`. */
export async function copyRange(from: string, to: string, start: number, end: number): Promise<void> {
  if (end <= start) return fs.promises.writeFile(to, '');
  await pipeline(fs.createReadStream(from, { start, end: end - 1 }), fs.createWriteStream(to));
}

export const segmentName = (index: number) => `${String(index).padStart(6, '0')}.zst`;

/** The base's bytes a segment is patched against: the same offset, widened by the margin. */
export function baseWindow(index: number, baseSize: number, segment = SEGMENT_BYTES, margin = MARGIN_BYTES): [number, number] {
  const start = Math.max(0, index * segment - margin);
  const end = Math.min(baseSize, (index + 1) * segment + margin);
  return [Math.min(start, end), end];
}

/** Writes the delta from `basePath` to `targetPath` as a tar at `outPath`; returns its description. */
export async function makeDelta(basePath: string, targetPath: string, outPath: string, options: { zstd?: string; segmentBytes?: number } = {}): Promise<DeltaDescription> {
  const zstd = options.zstd ?? 'zstd';
  const segment = options.segmentBytes ?? SEGMENT_BYTES;
  const [baseStat, targetStat] = await Promise.all([fs.promises.stat(basePath), fs.promises.stat(targetPath)]);
  const work = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'canopy-delta-'));
  try {
    const segments = Math.ceil(targetStat.size / segment);
    const names: string[] = [];
    for (let i = 0; i < segments; i++) {
      const windowFile = path.join(work, 'window');
      const targetFile = path.join(work, 'target');
      const [ws, we] = baseWindow(i, baseStat.size, segment);
      await copyRange(basePath, windowFile, ws, we);
      await copyRange(targetPath, targetFile, i * segment, Math.min(targetStat.size, (i + 1) * segment));
      const name = segmentName(i);
      // An empty window (base shorter than this offset) is compressed without a reference.
      const reference = we > ws ? [`--patch-from=${windowFile}`] : [];
      await run(zstd, ['-q', '-f', '--single-thread', `--long=${WINDOW_LOG}`, ...reference, targetFile, '-o', path.join(work, name)]);
      names.push(name);
    }
    const description: DeltaDescription = {
      format: DELTA_FORMAT,
      segment_bytes: segment,
      margin_bytes: MARGIN_BYTES,
      window_log: WINDOW_LOG,
      base: { size: baseStat.size, sha256: await sha256File(basePath) },
      target: { size: targetStat.size, sha256: await sha256File(targetPath) },
      segments,
    };
    await fs.promises.writeFile(path.join(work, 'delta.json'), JSON.stringify(description));
    await run('tar', ['-cf', outPath, '--format=ustar', '--blocking-factor=1', '-C', work, 'delta.json', ...names]);
    return description;
  } finally {
    await fs.promises.rm(work, { recursive: true, force: true });
  }
}
