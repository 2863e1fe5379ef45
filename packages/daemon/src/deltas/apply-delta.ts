/**
 * Rebuilds a binary from the base the device holds and a delta the server made (decision 009):
 * each segment is `zstd -d --patch-from` of its patch against the base's bytes around the same
 * offset, so memory stays bounded by one segment whatever the image size. Any problem throws
 * DeltaFailed; the caller then downloads the full binary. The caller verifies the result's hash
 * and signature exactly as for a full download (this module does not hash the result twice).
 */
import { DELTA_FORMAT, type DeltaDescription } from '@canopy/sdk/delta-format';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export class DeltaFailed extends Error {
  constructor(readonly reason: 'zstd_missing' | 'bad_delta' | 'wrong_base' | 'mismatch', detail: string) {
    super(`${reason}: ${detail}`);
    this.name = 'DeltaFailed';
  }
}


const MEMBER = /^(delta\.json|\d{6}\.zst)$/;
const MAX_WINDOW_LOG = 27;

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

async function copyRange(from: string, to: string, start: number, end: number): Promise<void> {
  if (end <= start) return fs.promises.writeFile(to, '');
  await pipeline(fs.createReadStream(from, { start, end: end - 1 }), fs.createWriteStream(to));
}

/** True when `zstd` runs here; the daemon asks before choosing a delta over the full binary. */
export async function zstdAvailable(zstd = 'zstd'): Promise<boolean> {
  try {
    await run(zstd, ['--version']);
    return true;
  } catch {
    return false;
  }
}

/** Only regular files with the names a delta has: nothing a tar could use to write elsewhere. */
async function extract(deltaPath: string, dir: string): Promise<void> {
  const { stdout } = await run('tar', ['-tvf', deltaPath]).catch(() => {
    throw new DeltaFailed('bad_delta', 'not a tar archive');
  });
  for (const line of stdout.split('\n').filter(Boolean)) {
    const name = line.split(/\s+/).pop() ?? '';
    if (!line.startsWith('-') || !MEMBER.test(name)) throw new DeltaFailed('bad_delta', `unexpected member ${name}`);
  }
  await run('tar', ['-xf', deltaPath, '-C', dir, '--no-same-owner', '--no-same-permissions']);
}

function parseDeltaDescription(text: string): DeltaDescription {
  let d: DeltaDescription;
  try {
    d = JSON.parse(text) as DeltaDescription;
  } catch {
    throw new DeltaFailed('bad_delta', 'delta.json is not JSON');
  }
  const whole = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  if (d.format !== DELTA_FORMAT || !whole(d.segment_bytes) || d.segment_bytes === 0 || !whole(d.margin_bytes) || !whole(d.segments)) throw new DeltaFailed('bad_delta', 'unknown format');
  if (!whole(d.window_log) || d.window_log > MAX_WINDOW_LOG) throw new DeltaFailed('bad_delta', 'window too large');
  if (d.segments !== Math.ceil(d.target.size / d.segment_bytes)) throw new DeltaFailed('bad_delta', 'segment count does not match the size');
  return d;
}

export interface ApplyOptions {
  zstd?: string;
  /** The base's SHA-256 when the device already knows it (it verified it when installing it). */
  baseSha256?: string;
}

/**
 * Writes the rebuilt binary to `outPath` and returns the hash and size it must have;
 * `work` is an empty scratch directory the caller removes.
 */
export async function applyDelta(basePath: string, deltaPath: string, outPath: string, work: string, options: ApplyOptions = {}): Promise<{ targetSha256: string; targetSize: number }> {
  const zstd = options.zstd ?? 'zstd';
  if (!(await zstdAvailable(zstd))) throw new DeltaFailed('zstd_missing', `${zstd} does not run`);
  await extract(deltaPath, work);
  const d = parseDeltaDescription(await fs.promises.readFile(path.join(work, 'delta.json'), 'utf8').catch(() => '{}'));
  const baseSize = (await fs.promises.stat(basePath)).size;
  if (baseSize !== d.base.size || (options.baseSha256 ?? (await sha256File(basePath))) !== d.base.sha256) throw new DeltaFailed('wrong_base', 'the base on the device is not the delta\'s base');
  await fs.promises.writeFile(outPath, '');
  const window = path.join(work, 'window');
  const segment = path.join(work, 'segment');
  for (let i = 0; i < d.segments; i++) {
    const start = Math.max(0, i * d.segment_bytes - d.margin_bytes);
    const end = Math.min(baseSize, (i + 1) * d.segment_bytes + d.margin_bytes);
    await copyRange(basePath, window, Math.min(start, end), end);
    const reference = end > start ? [`--patch-from=${window}`] : [];
    const patch = path.join(work, `${String(i).padStart(6, '0')}.zst`);
    await run(zstd, ['-q', '-f', '-d', `--long=${d.window_log}`, ...reference, patch, '-o', segment]).catch((e: Error) => {
      throw new DeltaFailed('bad_delta', `segment ${i}: ${e.message.split('\n')[0]}`);
    });
    await pipeline(fs.createReadStream(segment), fs.createWriteStream(outPath, { flags: 'a' }));
  }
  if ((await fs.promises.stat(outPath)).size !== d.target.size) throw new DeltaFailed('mismatch', 'the rebuilt binary is not the delta\'s target size');
  return { targetSha256: d.target.sha256, targetSize: d.target.size };
}
