/**
 * The hashing job survives its worker: a job claimed by a worker that then dies (its lease is
 * never renewed) is taken over once the lease runs out, and a job that keeps failing gives the
 * binary back as hashable instead of leaving it in hashing.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { HASH_JOB, hashJobKey, MAX_HASH_ATTEMPTS } from '../../src/binaries/hashing-job';
import { JOB_HANDLERS } from '../../src/workers/handlers';
import { claimJob } from '../../src/workers/queue';
import { createJobRunner } from '../../src/workers/runner';
import { jobs } from '../../src/workers/schema';
import { bytesOf, eventually, uploadedBinary } from '../support/binaries';
import { useTestServer } from '../support/server';

// No workers in the server itself: the test plays the workers.
const t = useTestServer({}, { workers: false });
const stateOf = async (prn: string) => (await t.api('GET', `/binaries/${prn}`)).body.binary;

describe('hashing job recovery', () => {
  it('is retaken after the lease of a dead worker expires', async () => {
    const { prn } = await uploadedBinary(t.api, bytesOf(2000), { until: 'hashing' });
    const platform = t.server.platform;
    // A worker claims the job with a 2-second lease and dies without a heartbeat.
    const claimed = await claimJob(platform.db, [HASH_JOB], 2);
    expect(claimed?.key).toBe(hashJobKey(prn.split(':').pop()!));

    const runner = createJobRunner(platform, JOB_HANDLERS, { pollMs: 100 });
    runner.start();
    try {
      await new Promise((r) => setTimeout(r, 1000));
      expect((await stateOf(prn)).state).toBe('hashing'); // the lease still holds
      await eventually(async () => (await stateOf(prn)).state === 'signable', 15_000);
    } finally {
      await runner.stop();
    }
    expect(await platform.db.select().from(jobs).where(eq(jobs.kind, HASH_JOB))).toEqual([]);
  });

  it('gives the binary back as hashable after too many failed attempts', async () => {
    const { prn } = await uploadedBinary(t.api, bytesOf(2000), { until: 'hashing' });
    const platform = t.server.platform;
    await platform.db.update(jobs).set({ attempts: MAX_HASH_ATTEMPTS, lastError: 'disk on fire' }).where(eq(jobs.key, hashJobKey(prn.split(':').pop()!)));
    const runner = createJobRunner(platform, JOB_HANDLERS, { pollMs: 100 });
    runner.start();
    try {
      await eventually(async () => (await stateOf(prn)).state === 'hashable', 15_000);
    } finally {
      await runner.stop();
    }
    expect((await stateOf(prn)).hash_error).toMatch(/^hashing_failed: .*disk on fire/);
  });
});
