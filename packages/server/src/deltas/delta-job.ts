/**
 * The durable `binary.delta` job: makes the delta of one (base, target) binary pair (decision
 * 005) and stores it beside the target's bytes, so destroying the target purges it. Both
 * binaries must have been hashed (their assembled object is what devices download); until then
 * the job retries. One delta at a time per process (the runner has more slots): making one holds
 * ~110 MB and a core. A process that dies mid-job lets the lease lapse and another starts over.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { assembledKey } from '../binaries/blob-keys';
import { binaries } from '../binaries/schema';
import type { JobContext, JobHandler } from '../workers/runner';
import { binaryDeltas } from './schema';
import { makeDelta } from './segmented-patch';

export const DELTA_JOB = 'binary.delta';
export const deltaJobKey = (baseId: string, targetId: string) => `${DELTA_JOB}:${baseId}:${targetId}`;
export const deltaKey = (targetId: string, targetRevision: number, baseId: string) => `binaries/${targetId}/deltas/${baseId}-r${targetRevision}.tar`;
export const MAX_DELTA_ATTEMPTS = 6;
const HASHED = ['signable', 'signed'] as const;

let turn: Promise<unknown> = Promise.resolve();
/** Runs `task` after every earlier one of this process has finished. */
function oneAtATime<T>(task: () => Promise<T>): Promise<T> {
  const next = turn.then(task, task);
  turn = next.catch(() => undefined);
  return next;
}

async function download(context: JobContext, key: string, file: string): Promise<void> {
  await pipeline(await context.platform.blobs.get(key), fs.createWriteStream(file));
  await context.heartbeat();
}

async function setState(context: JobContext, id: string, values: Partial<typeof binaryDeltas.$inferInsert>): Promise<void> {
  await context.platform.db.update(binaryDeltas).set({ ...values, updatedAt: sql`now()` }).where(eq(binaryDeltas.id, id));
}

async function makeOne(context: JobContext, deltaId: string): Promise<void> {
  const { db, blobs } = context.platform;
  const [delta] = await db.select().from(binaryDeltas).where(eq(binaryDeltas.id, deltaId));
  if (!delta || delta.state !== 'pending') return;
  const pair = await db.select().from(binaries).where(inArray(binaries.id, [delta.baseBinaryId, delta.targetBinaryId]));
  const base = pair.find((b) => b.id === delta.baseBinaryId);
  const target = pair.find((b) => b.id === delta.targetBinaryId);
  if (!base || !target || base.state === 'destroyed' || target.state === 'destroyed') return setState(context, deltaId, { state: 'failed', error: 'binary_destroyed' });
  if (!HASHED.includes(base.state as never) || !HASHED.includes(target.state as never)) {
    if (context.job.attempts >= MAX_DELTA_ATTEMPTS) return setState(context, deltaId, { state: 'failed', error: 'binaries_not_hashed' });
    throw new Error('waiting for both binaries to be hashed');
  }
  const work = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'canopy-delta-job-'));
  try {
    const [basePath, targetPath, deltaPath] = ['base', 'target', 'delta.tar'].map((n) => path.join(work, n)) as [string, string, string];
    await download(context, assembledKey(base.id, base.revision), basePath);
    await download(context, assembledKey(target.id, target.revision), targetPath);
    await makeDelta(basePath, targetPath, deltaPath);
    const size = (await fs.promises.stat(deltaPath)).size;
    if (size >= target.size) return setState(context, deltaId, { state: 'not_smaller', size, error: null });
    const hash = createHash('sha256');
    await pipeline(fs.createReadStream(deltaPath), hash);
    const key = deltaKey(target.id, target.revision, base.id);
    await blobs.put(key, fs.createReadStream(deltaPath) as Readable, size);
    await db
      .update(binaryDeltas)
      .set({ state: 'ready', blobKey: key, size, hash: hash.digest('hex'), error: null, updatedAt: sql`now()` })
      .where(and(eq(binaryDeltas.id, deltaId), eq(binaryDeltas.state, 'pending')));
  } finally {
    await fs.promises.rm(work, { recursive: true, force: true });
  }
}

export const binaryDeltaJob: JobHandler = {
  kind: DELTA_JOB,
  leaseSeconds: 120,
  retryDelay: (attempt) => Math.min(600, 10 * 2 ** attempt),
  async run(context) {
    const { delta_id: deltaId } = context.job.payload as { delta_id: string };
    await oneAtATime(() => makeOne(context, deltaId));
  },
};
