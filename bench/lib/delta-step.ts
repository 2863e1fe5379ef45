/**
 * One side of a delta in its own process, so bench/deltas.ts can read its CPU time and peak RSS
 * (children included: the zstd processes) from /usr/bin/time. `make BASE TARGET OUT` is the
 * server's job; `apply BASE DELTA OUT` is the device's rebuild plus the hash check of a download.
 * `apply` also writes its own elapsed seconds (without Node's start, which a running daemon
 * does not pay) to OUT.seconds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyDelta } from '../../packages/daemon/src/deltas/apply-delta';
import { sha256File } from '../../packages/daemon/src/verify/hash-file';
import { makeDelta } from '../../packages/server/src/deltas/segmented-patch';

const [step, base, input, out, baseSha256] = process.argv.slice(2) as [string, string, string, string, string?];
if (step === 'make') {
  await makeDelta(base, input, out);
} else {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-apply-'));
  const started = performance.now();
  try {
    const rebuilt = await applyDelta(base, input, out, work, { baseSha256 });
    const verified = await sha256File(out);
    if (verified.hash !== rebuilt.targetSha256) throw new Error('verification failed');
    fs.writeFileSync(`${out}.seconds`, String((performance.now() - started) / 1000));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
