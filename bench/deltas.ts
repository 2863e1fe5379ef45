/**
 * Issue 43's delta benchmark (decision 009). For each image size (BENCH_DELTA_SIZES_MB, default
 * "64,512") and two updates (1% of 4 KiB blocks rewritten; a package upgrade: one 4 MiB region
 * rewritten plus a few metadata blocks), prints in one run: bytes on the wire for Canopy's
 * delta beside whole-file `zstd --patch-from --long` and the full image; the device's time and
 * peak RSS to rebuild and verify beside `zstd -d --patch-from`; the server's CPU and RSS to make
 * the delta. Targets: delta <= 2x the zstd patch and <= 10% of full; device RSS flat with size.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MiB = 1024 * 1024;
const BLOCK = 4096;
const sizes = (process.env.BENCH_DELTA_SIZES_MB ?? '64,512').split(',').map(Number);
const step = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lib', 'delta-step.ts');

interface Measured { seconds: number; cpu: number; rssMb: number }

/** Runs a command under GNU time: wall seconds, user+system CPU, peak RSS of it and its children. */
function timed(command: string, args: string[]): Measured {
  const report = path.join(os.tmpdir(), `bench-time-${process.pid}`);
  execFileSync('/usr/bin/time', ['-o', report, '-f', '%e %U %S %M', command, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  const [e, u, s, m] = fs.readFileSync(report, 'utf8').trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number, number];
  return { seconds: e, cpu: u + s, rssMb: m / 1024 };
}

/** A root file system-like image: half random, half repetitive 4 KiB blocks. */
function writeImage(file: string, bytes: number): void {
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(MiB);
  for (let at = 0; at < bytes; at += MiB) {
    for (let b = 0; b < MiB; b += BLOCK) {
      if ((b / BLOCK) % 2 === 0) randomBytes(BLOCK).copy(chunk, b);
      else chunk.fill((at + b) % 251, b, b + BLOCK);
    }
    fs.writeSync(fd, chunk, 0, Math.min(MiB, bytes - at));
  }
  fs.closeSync(fd);
}

function rewrite(file: string, regions: [offset: number, length: number][]): void {
  const fd = fs.openSync(file, 'r+');
  for (const [offset, length] of regions) fs.writeSync(fd, randomBytes(length), 0, length, offset);
  fs.closeSync(fd);
}

function updates(bytes: number): Record<string, [number, number][]> {
  const blocks = Math.floor(bytes / BLOCK);
  const scattered = Array.from({ length: Math.max(1, Math.floor(blocks / 100)) }, (_, i) => [((i * 7919) % blocks) * BLOCK, BLOCK] as [number, number]);
  const region = Math.min(4 * MiB, Math.floor(bytes / 8));
  const upgrade: [number, number][] = [[Math.floor(bytes / 3 / BLOCK) * BLOCK, region], [BLOCK, BLOCK], [Math.floor(bytes / 2 / BLOCK) * BLOCK, BLOCK]];
  return { '1% of blocks': scattered, 'package upgrade': upgrade };
}

const tsx = (...args: string[]) => [process.execPath, ['--import', 'tsx', step, ...args]] as const;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-deltas-'));
const rows: string[] = [];
try {
  for (const mb of sizes) {
    const bytes = Math.round(mb * MiB);
    const base = path.join(dir, 'base');
    writeImage(base, bytes);
    // The device verified its installed binary's hash when it installed it: it passes it in.
    const baseSha256 = createHash('sha256').update(fs.readFileSync(base)).digest('hex');
    for (const [name, regions] of Object.entries(updates(bytes))) {
      const target = path.join(dir, 'target');
      fs.copyFileSync(base, target);
      rewrite(target, regions);
      const delta = path.join(dir, 'delta.tar');
      const ref = path.join(dir, 'ref.zst');
      const make = timed(...tsx('make', base, target, delta));
      const refMake = timed('zstd', ['-q', '-f', '--long=30', `--patch-from=${base}`, target, '-o', ref]);
      const apply = timed(...tsx('apply', base, delta, path.join(dir, 'out'), baseSha256));
      const refApply = timed('zstd', ['-q', '-f', '-d', '--long=30', '--memory=2048MB', `--patch-from=${base}`, ref, '-o', path.join(dir, 'ref-out')]);
      execFileSync('cmp', [path.join(dir, 'out'), target]);
      const inDaemon = Number(fs.readFileSync(path.join(dir, 'out.seconds'), 'utf8'));
      const d = fs.statSync(delta).size;
      const r = fs.statSync(ref).size;
      rows.push(
        `${mb} MiB, ${name}: wire ${d} B = ${(d / r).toFixed(2)}x zstd patch (${r} B), ${((100 * d) / bytes).toFixed(2)}% of full (${bytes} B)\n` +
          `  device rebuild+verify ${inDaemon.toFixed(2)} s in a running daemon (${apply.seconds.toFixed(2)} s with Node's start), ${apply.rssMb.toFixed(0)} MB peak  |  zstd -d --patch-from ${refApply.seconds.toFixed(2)} s, ${refApply.rssMb.toFixed(0)} MB  (time ${(inDaemon / Math.max(refApply.seconds, 0.01)).toFixed(2)}x, ${(apply.seconds / Math.max(refApply.seconds, 0.01)).toFixed(2)}x with the start)\n` +
          `  server make ${make.cpu.toFixed(2)} s CPU, ${make.rssMb.toFixed(0)} MB peak  |  zstd --patch-from --long=30 ${refMake.cpu.toFixed(2)} s CPU, ${refMake.rssMb.toFixed(0)} MB`,
      );
      console.log(rows[rows.length - 1]);
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
