import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyDelta, DeltaFailed } from './apply-delta';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apply-delta-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const SEG = 256 * 1024;

const base = randomBytes(3 * SEG + 1000);
const target = Buffer.from(base);
randomBytes(5000).copy(target, 70_000);
randomBytes(100).copy(target, 2 * SEG + 10);
fs.writeFileSync(path.join(dir, 'base'), base);
fs.writeFileSync(path.join(dir, 'target'), target);

/** The server's format (decision 009), made here with the zstd CLI; margin 0 keeps it short. */
function makeDelta(name: string, corrupt = false): string {
  const work = fs.mkdtempSync(path.join(dir, 'make-'));
  const segments = Math.ceil(target.length / SEG);
  const names = [];
  for (let i = 0; i < segments; i++) {
    fs.writeFileSync(path.join(work, 'w'), base.subarray(i * SEG, (i + 1) * SEG));
    fs.writeFileSync(path.join(work, 't'), target.subarray(i * SEG, (i + 1) * SEG));
    const n = `${String(i).padStart(6, '0')}.zst`;
    execFileSync('zstd', ['-q', '-f', '--long=26', `--patch-from=${path.join(work, 'w')}`, path.join(work, 't'), '-o', path.join(work, n)]);
    names.push(n);
  }
  if (corrupt) {
    const p = path.join(work, names[1]!);
    const bytes = fs.readFileSync(p);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    fs.writeFileSync(p, bytes);
  }
  const description = { format: 'canopy-zstd-segments-1', segment_bytes: SEG, margin_bytes: 0, window_log: 26, base: { size: base.length, sha256: sha(base) }, target: { size: target.length, sha256: sha(target) }, segments };
  fs.writeFileSync(path.join(work, 'delta.json'), JSON.stringify(description));
  const out = path.join(dir, name);
  execFileSync('tar', ['-cf', out, '-C', work, 'delta.json', ...names]);
  return out;
}

const scratch = () => fs.mkdtempSync(path.join(dir, 'work-'));
const good = makeDelta('good.tar');

describe('applyDelta', () => {
  it('rebuilds the target byte for byte from the base and the delta', async () => {
    const out = path.join(dir, 'out');
    await expect(applyDelta(path.join(dir, 'base'), good, out, scratch())).resolves.toEqual({ targetSha256: sha(target), targetSize: target.length });
    expect(fs.readFileSync(out).equals(target)).toBe(true);
  });

  it('takes the base hash the device already knows instead of reading the base again', async () => {
    await expect(applyDelta(path.join(dir, 'base'), good, path.join(dir, 'o1'), scratch(), { baseSha256: sha(randomBytes(8)) })).rejects.toMatchObject({ reason: 'wrong_base' });
  });

  it('refuses a base that is not the delta\'s base', async () => {
    fs.writeFileSync(path.join(dir, 'other'), randomBytes(base.length));
    await expect(applyDelta(path.join(dir, 'other'), good, path.join(dir, 'o2'), scratch())).rejects.toMatchObject({ reason: 'wrong_base' });
  });

  it('fails on a corrupt patch', async () => {
    const bad = makeDelta('corrupt.tar', true);
    const error = await applyDelta(path.join(dir, 'base'), bad, path.join(dir, 'o3'), scratch()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeltaFailed);
    expect(['bad_delta', 'mismatch']).toContain((error as DeltaFailed).reason);
  });

  it('fails when zstd is missing', async () => {
    await expect(applyDelta(path.join(dir, 'base'), good, path.join(dir, 'o4'), scratch(), { zstd: '/nonexistent/zstd' })).rejects.toMatchObject({ reason: 'zstd_missing' });
  });

  it('refuses an archive with members a delta does not have (links, other paths)', async () => {
    const work = fs.mkdtempSync(path.join(dir, 'evil-'));
    fs.symlinkSync('/etc/passwd', path.join(work, 'delta.json'));
    const evil = path.join(dir, 'evil.tar');
    execFileSync('tar', ['-cf', evil, '-C', work, 'delta.json']);
    await expect(applyDelta(path.join(dir, 'base'), evil, path.join(dir, 'o5'), scratch())).rejects.toMatchObject({ reason: 'bad_delta' });
    fs.writeFileSync(path.join(dir, 'not.tar'), 'garbage');
    await expect(applyDelta(path.join(dir, 'base'), path.join(dir, 'not.tar'), path.join(dir, 'o6'), scratch())).rejects.toMatchObject({ reason: 'bad_delta' });
  });
});
