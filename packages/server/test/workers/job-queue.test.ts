import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { claimJob, completeJob, enqueueJob, retryJob } from '../../src/workers/queue';
import { jobs } from '../../src/workers/schema';
import { createJobRunner } from '../../src/workers/runner';
import { useTestServer } from '../support/server';

const t = useTestServer();

const db = () => t.server.platform.db;

describe('durable job queue', () => {
  it('hands a due job to one claimer only, and not before it is due', async () => {
    await enqueueJob(db(), { kind: 'test.once', payload: { n: 1 } });
    await enqueueJob(db(), { kind: 'test.once', payload: { n: 2 }, runAt: new Date(Date.now() + 60_000) });
    const [a, b] = await Promise.all([claimJob(db(), ['test.once'], 30), claimJob(db(), ['test.once'], 30)]);
    const claimed = [a, b].filter(Boolean);
    expect(claimed).toHaveLength(1);
    expect(claimed[0]!.payload).toEqual({ n: 1 });
    expect(claimed[0]!.attempts).toBe(1);
    expect(await claimJob(db(), ['test.once'], 30)).toBeNull();
    await completeJob(db(), claimed[0]!.id);
  });

  it('gives a job whose worker died back once its lease runs out', async () => {
    await enqueueJob(db(), { kind: 'test.lease', payload: {} });
    const first = await claimJob(db(), ['test.lease'], 30);
    expect(first).not.toBeNull();
    expect(await claimJob(db(), ['test.lease'], 30)).toBeNull();
    // The worker "dies": simulate its lease expiring.
    await db().update(jobs).set({ lockedUntil: sql`now() - interval '1 second'` }).where(sql`id = ${first!.id}`);
    const second = await claimJob(db(), ['test.lease'], 30);
    expect(second?.id).toBe(first!.id);
    expect(second?.attempts).toBe(2);
    await completeJob(db(), second!.id);
  });

  it('moves a keyed job instead of adding a second one', async () => {
    await enqueueJob(db(), { kind: 'test.keyed', key: 'k1', payload: { v: 1 }, runAt: new Date(Date.now() + 60_000) });
    await enqueueJob(db(), { kind: 'test.keyed', key: 'k1', payload: { v: 2 } });
    const rows = await db().select().from(jobs).where(sql`key = 'k1'`);
    expect(rows).toHaveLength(1);
    expect(rows[0].payload).toEqual({ v: 2 });
    const claimed = await claimJob(db(), ['test.keyed'], 30);
    await retryJob(db(), claimed!.id, 3600, 'boom');
    const [after] = await db().select().from(jobs).where(sql`key = 'k1'`);
    expect(after.lastError).toBe('boom');
    expect(after.lockedUntil).toBeNull();
  });

  it('runs handlers, retries failures and completes successes', async () => {
    const seen: number[] = [];
    let failOnce = true;
    const runner = createJobRunner(
      t.server.platform,
      [
        {
          kind: 'test.run',
          retryDelay: () => 0,
          async run({ job }) {
            if (failOnce && job.payload.n === 2) {
              failOnce = false;
              throw new Error('transient');
            }
            seen.push(job.payload.n as number);
          },
        },
      ],
      { pollMs: 20, slots: 1 },
    );
    for (const n of [1, 2, 3]) await enqueueJob(db(), { kind: 'test.run', payload: { n } });
    runner.start();
    const deadline = Date.now() + 10_000;
    while (seen.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await runner.stop();
    expect(seen.sort()).toEqual([1, 2, 3]);
    expect(await db().select().from(jobs).where(sql`kind = 'test.run'`)).toHaveLength(0);
  });

  it('keeps a keyed job that was moved while it ran, for its new time', async () => {
    await enqueueJob(db(), { kind: 'test.moved', key: 'moved-1', payload: { v: 1 } });
    const claimed = await claimJob(db(), ['test.moved'], 30);
    // While the run is in progress, the thing it is about moves it (a tunnel's ttl extended).
    await enqueueJob(db(), { kind: 'test.moved', key: 'moved-1', payload: { v: 2 }, runAt: new Date(Date.now() + 60_000) });
    await completeJob(db(), claimed!.id, claimed!.runAt);
    const [kept] = await db().select().from(jobs).where(sql`key = 'moved-1'`);
    expect(kept.payload).toEqual({ v: 2 });
    expect(kept.lockedUntil).toBeNull();
    // An unmoved job is simply done.
    await enqueueJob(db(), { kind: 'test.moved', key: 'moved-2', payload: {} });
    const second = await claimJob(db(), ['test.moved'], 30);
    await completeJob(db(), second!.id, second!.runAt);
    expect(await db().select().from(jobs).where(sql`key = 'moved-2'`)).toHaveLength(0);
  });
});
