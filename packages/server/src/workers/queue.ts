/**
 * Enqueueing and claiming durable jobs. Claims use `FOR UPDATE SKIP LOCKED`, so any number of
 * server processes can work the same queue without taking the same job twice.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { jobs } from './schema';

export type JobRow = typeof jobs.$inferSelect;

export interface NewJob {
  kind: string;
  payload: Record<string, unknown>;
  /** When to run; default now. */
  runAt?: Date;
  key?: string;
}

/** Call inside the transaction that makes the job necessary, so the two commit together. */
export async function enqueueJob(tx: Executor, job: NewJob): Promise<void> {
  await tx
    .insert(jobs)
    .values({
      id: randomUUID(),
      kind: job.kind,
      key: job.key ?? null,
      payload: job.payload,
      runAt: (job.runAt ?? new Date()).toISOString(),
    })
    .onConflictDoUpdate({
      target: jobs.key,
      // Re-enqueueing a keyed job moves it to the new time instead of adding a second one.
      set: { runAt: sql`excluded.run_at`, payload: sql`excluded.payload`, attempts: 0, lastError: null },
    });
}

export async function claimJob(db: Executor, kinds: string[], leaseSeconds: number): Promise<JobRow | null> {
  if (kinds.length === 0) return null;
  const result = await db.execute(sql`
    update ${jobs} set locked_until = now() + make_interval(secs => ${leaseSeconds}), attempts = attempts + 1
    where id = (
      select id from ${jobs}
      where run_at <= now() and (locked_until is null or locked_until < now())
        and kind in (${sql.join(kinds.map((k) => sql`${k}`), sql`, `)})
      order by run_at
      limit 1
      for update skip locked
    )
    returning id`);
  const row = (result as unknown as { rows: { id: string }[] }).rows[0];
  if (!row) return null;
  const [job] = await db.select().from(jobs).where(eq(jobs.id, row.id));
  return job ?? null;
}

/**
 * Finishes a claimed run. Given the run_at the run was claimed with, a keyed job that was
 * re-enqueued while it ran (so its run_at moved) is not deleted but released for its new time:
 * otherwise a reschedule racing with the old run (a tunnel's ttl extended just as it was due)
 * would be lost.
 */
export async function completeJob(db: Executor, id: string, claimedRunAt?: string): Promise<void> {
  if (claimedRunAt === undefined) {
    await db.delete(jobs).where(eq(jobs.id, id));
    return;
  }
  const deleted = await db.delete(jobs).where(and(eq(jobs.id, id), eq(jobs.runAt, claimedRunAt))).returning({ id: jobs.id });
  if (deleted.length === 0) await db.update(jobs).set({ lockedUntil: null }).where(eq(jobs.id, id));
}

export async function retryJob(db: Executor, id: string, delaySeconds: number, error: string): Promise<void> {
  await db
    .update(jobs)
    .set({ runAt: sql`now() + make_interval(secs => ${delaySeconds})`, lockedUntil: null, lastError: error.slice(0, 2000) })
    .where(eq(jobs.id, id));
}

export async function extendLease(db: Executor, id: string, leaseSeconds: number): Promise<void> {
  await db.update(jobs).set({ lockedUntil: sql`now() + make_interval(secs => ${leaseSeconds})` }).where(eq(jobs.id, id));
}
