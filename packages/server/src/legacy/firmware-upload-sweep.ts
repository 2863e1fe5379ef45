/**
 * A firmware upload copies the archive into the blob store before inserting its row (a row must
 * never name missing bytes), so a process killed in between would leave an orphan blob forever.
 * Before the copy, the upload enqueues a durable sweep job for its blob, due HOLD_SECONDS later and
 * pushed back while the copy runs; the row's transaction deletes the job. If the process dies the
 * job falls due and any process's runner deletes the blob, unless the row exists.
 * The row's transaction (the request's: db/request-scope.ts) deletes the job only while no runner
 * has claimed it (`attempts = 0`; claiming increments it), else the upload fails. Claims lock the
 * row (`FOR UPDATE SKIP LOCKED`), so only one side wins; a request rolled back or killed after
 * the delete brings the job back, and it sweeps the blob its row never got.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { outsideRequestScope } from '../db/request-scope';
import { ApiError } from '../http/errors';
import { enqueueJob } from '../workers/queue';
import type { JobHandler } from '../workers/runner';
import { jobs } from '../workers/schema';
import { firmwares } from './schema';

export const FIRMWARE_UPLOAD_SWEEP_JOB = 'legacy_firmware_upload_sweep';
/** How long a dead upload's blob can stay; the copy pushes the job back every third of it. */
export const HOLD_SECONDS = 30;

const jobKey = (firmwareId: string) => `${FIRMWARE_UPLOAD_SWEEP_JOB}:${firmwareId}`;

export interface SweepHold {
  /** Stops pushing the job back (the copy ended, well or not). */
  stop(): void;
  /** Inside the row's transaction: deletes the job; throws when a runner already took it. */
  release(tx: Executor): Promise<void>;
  /** The upload failed before its row: the blob is deleted by the caller, the job goes now. */
  abandon(db: Executor): Promise<void>;
}

/**
 * Enqueues the sweep job and keeps it back until `stop`. Both run outside the request's scope
 * (admin writes run in one transaction per request, db/request-scope.ts): the job must be
 * committed before the copy begins, and must not open the request's transaction during it.
 */
export async function holdUploadBlob(db: Executor, firmwareId: string, blobKey: string, onError: (error: unknown) => void): Promise<SweepHold> {
  const key = jobKey(firmwareId);
  const unclaimed = and(eq(jobs.key, key), eq(jobs.attempts, 0));
  const timer = await outsideRequestScope(async () => {
    await enqueueJob(db, { kind: FIRMWARE_UPLOAD_SWEEP_JOB, key, payload: { firmware_id: firmwareId, blob_key: blobKey }, runAt: new Date(Date.now() + HOLD_SECONDS * 1000) });
    // Only an unclaimed job is pushed back: re-enqueueing would reset `attempts` under a runner.
    const pushBack = () => {
      db.update(jobs).set({ runAt: sql`now() + make_interval(secs => ${HOLD_SECONDS})` }).where(unclaimed).catch(onError);
    };
    return setInterval(pushBack, (HOLD_SECONDS * 1000) / 3).unref();
  });
  return {
    stop: () => clearInterval(timer),
    async release(tx) {
      const released = await tx.delete(jobs).where(unclaimed).returning({ id: jobs.id });
      if (released.length === 0) throw new ApiError(503, [{ code: 'upload_expired', context: { reason: 'the upload took too long; send it again' } }]);
    },
    async abandon(db) {
      await outsideRequestScope(() => db.delete(jobs).where(unclaimed));
    },
  };
}

export const firmwareUploadSweepJob: JobHandler = {
  kind: FIRMWARE_UPLOAD_SWEEP_JOB,
  async run({ platform, job }) {
    const { firmware_id: firmwareId, blob_key: blobKey } = job.payload as { firmware_id: string; blob_key: string };
    const [row] = await platform.db.select({ id: firmwares.id }).from(firmwares).where(eq(firmwares.id, firmwareId)).limit(1);
    if (!row) await platform.blobs.delete(blobKey);
  },
};
