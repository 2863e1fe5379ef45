/**
 * Keeps bench/deltas.ts from rotting: runs it on a 1 MiB image (the benchmark itself is not
 * part of the suite) and checks it prints every figure and that the delta rebuilt the target.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const bench = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bench');

it('runs bench/deltas.ts on tiny inputs', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'deltas.ts'], { cwd: bench, env: { ...process.env, BENCH_DELTA_SIZES_MB: '1' }, encoding: 'utf8' });
  expect(out).toMatch(/1 MiB, 1% of blocks: wire \d+ B = [\d.]+x zstd patch/);
  expect(out).toMatch(/1 MiB, package upgrade: wire \d+ B/);
  expect(out).toMatch(/device rebuild\+verify [\d.]+ s in a running daemon \([\d.]+ s with Node's start\), \d+ MB peak/);
  expect(out).toMatch(/server make [\d.]+ s CPU, \d+ MB peak/);
});
