/**
 * Runs durable jobs in this process: polls for due jobs of the kinds it has handlers for, runs
 * them one at a time per slot, retries failures with backoff. Long jobs call `heartbeat()` to
 * keep their lease; a process that dies mid-job leaves the lease to expire and another process
 * (or this one after a restart) takes the job over.
 */
import type { Platform } from '../platform';
import { claimJob, completeJob, extendLease, retryJob, type JobRow } from './queue';

export interface JobContext {
  platform: Platform;
  job: JobRow;
  /** Keep the lease while a long job makes progress. */
  heartbeat(): Promise<void>;
  signal: AbortSignal;
}

export interface JobHandler {
  kind: string;
  run(context: JobContext): Promise<void>;
  /** Seconds before a failed attempt is retried; default grows with the attempt number. */
  retryDelay?(attempt: number): number;
  leaseSeconds?: number;
}

export interface JobRunner {
  start(): void;
  /** Ask for an immediate poll (after enqueueing in this process). */
  wake(): void;
  stop(): Promise<void>;
}

const DEFAULT_LEASE = 60;

export function createJobRunner(platform: Platform, handlers: JobHandler[], options: { pollMs?: number; slots?: number } = {}): JobRunner {
  const byKind = new Map(handlers.map((h) => [h.kind, h]));
  const kinds = [...byKind.keys()];
  const pollMs = options.pollMs ?? 500;
  const slots = options.slots ?? 2;
  const controller = new AbortController();
  let running: Promise<void>[] = [];
  let wakeUp: (() => void) | null = null;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wakeUp = null;
        resolve();
      }, ms);
      wakeUp = () => {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      };
    });

  async function runOne(job: JobRow): Promise<void> {
    const handler = byKind.get(job.kind)!;
    const lease = handler.leaseSeconds ?? DEFAULT_LEASE;
    try {
      await handler.run({ platform, job, signal: controller.signal, heartbeat: () => extendLease(platform.db, job.id, lease) });
      await completeJob(platform.db, job.id, job.runAt);
    } catch (error) {
      if (controller.signal.aborted) return; // shutting down: the lease expires and the job runs again
      const delay = handler.retryDelay?.(job.attempts) ?? Math.min(3600, 2 ** Math.min(job.attempts, 12));
      platform.log.warn({ err: error, job: job.id, kind: job.kind }, 'job failed; will retry');
      await retryJob(platform.db, job.id, delay, String((error as Error)?.message ?? error)).catch(() => {});
    }
  }

  async function loop(): Promise<void> {
    while (!controller.signal.aborted) {
      let job: JobRow | null = null;
      try {
        const lease = Math.max(...handlers.map((h) => h.leaseSeconds ?? DEFAULT_LEASE));
        job = await claimJob(platform.db, kinds, lease);
      } catch (error) {
        if (controller.signal.aborted) return;
        platform.log.error({ err: error }, 'could not claim a job');
      }
      if (job) await runOne(job);
      else await sleep(pollMs);
    }
  }

  return {
    start() {
      if (kinds.length === 0 || running.length) return;
      running = Array.from({ length: slots }, () => loop());
    },
    wake() {
      wakeUp?.();
    },
    async stop() {
      controller.abort();
      wakeUp?.();
      await Promise.allSettled(running);
      running = [];
    },
  };
}
