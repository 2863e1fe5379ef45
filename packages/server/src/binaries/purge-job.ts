/**
 * Deleting stored bytes is a durable job enqueued in the transaction that makes them garbage
 * (reset, destroy, delete, a replaced part), so a crash right after the commit cannot leave
 * bytes behind forever, and a slow store never holds a transaction open.
 */
import { randomUUID } from 'node:crypto';
import type { Executor } from '../db/connection';
import { enqueueJob } from '../workers/queue';
import type { JobHandler } from '../workers/runner';

export const PURGE_JOB = 'binary.purge_blobs';

export async function enqueuePurge(tx: Executor, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await enqueueJob(tx, { kind: PURGE_JOB, payload: { keys }, key: `${PURGE_JOB}:${randomUUID()}` });
}

export const purgeBlobsJob: JobHandler = {
  kind: PURGE_JOB,
  async run({ platform, job, heartbeat }) {
    const keys = (job.payload.keys as string[]) ?? [];
    for (const [i, key] of keys.entries()) {
      await platform.blobs.delete(key);
      if (i % 100 === 99) await heartbeat();
    }
  },
};
