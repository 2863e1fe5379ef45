import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseWindow, DELTA_FORMAT, makeDelta, MARGIN_BYTES } from './segmented-patch';

const MiB = 1024 * 1024;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'segmented-patch-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('makeDelta', () => {
  it('writes per-segment patches that rebuild the target from the base, far smaller than it', async () => {
    const base = randomBytes(3 * MiB);
    const target = Buffer.from(base);
    for (let block = 0; block < target.length / 4096; block += 97) randomBytes(4096).copy(target, block * 4096);
    fs.writeFileSync(path.join(dir, 'base'), base);
    fs.writeFileSync(path.join(dir, 'target'), target);
    const out = path.join(dir, 'delta.tar');
    const d = await makeDelta(path.join(dir, 'base'), path.join(dir, 'target'), out, { segmentBytes: MiB });
    expect(d).toMatchObject({ format: DELTA_FORMAT, segments: 3, segment_bytes: MiB, base: { size: 3 * MiB }, target: { size: 3 * MiB } });
    expect(d.target.sha256).toBe(createHash('sha256').update(target).digest('hex'));
    expect(fs.statSync(out).size).toBeLessThan(target.length / 10);
    expect(execFileSync('tar', ['-tf', out], { encoding: 'utf8' }).trim().split('\n')).toEqual(['delta.json', '000000.zst', '000001.zst', '000002.zst']);
    // Rebuild with the zstd CLI alone: the format is nothing but zstd patches against the base.
    const x = path.join(dir, 'x');
    fs.mkdirSync(x);
    execFileSync('tar', ['-xf', out, '-C', x]);
    const rebuilt = [0, 1, 2].map((i) => execFileSync('zstd', ['-d', '-c', '--long=26', `--patch-from=${path.join(dir, 'base')}`, path.join(x, `00000${i}.zst`)]));
    expect(Buffer.concat(rebuilt).equals(target)).toBe(true);
  });

  it('widens each segment\'s base window by the margin, within the base', () => {
    expect(baseWindow(0, 100 * MiB)).toEqual([0, 32 * MiB + MARGIN_BYTES]);
    expect(baseWindow(1, 100 * MiB)).toEqual([32 * MiB - MARGIN_BYTES, 64 * MiB + MARGIN_BYTES]);
    expect(baseWindow(2, 100 * MiB)).toEqual([64 * MiB - MARGIN_BYTES, 100 * MiB]);
    expect(baseWindow(3, 100 * MiB)).toEqual([96 * MiB - MARGIN_BYTES, 100 * MiB]);
    expect(baseWindow(9, 10 * MiB)).toEqual([10 * MiB, 10 * MiB]);
  });
});
