/**
 * The sweep job of firmware uploads (legacy/firmware-upload-sweep.ts), played step by step: an
 * archive stored by an upload that died before its row is deleted once the job falls due; a
 * finished upload leaves no job behind, and its archive stays; an upload whose job a runner has
 * already claimed is refused (503) rather than committing a row whose archive is being deleted.
 * (The kill itself is in crash-consistency.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors';
import { FIRMWARE_UPLOAD_SWEEP_JOB, holdUploadBlob } from '../../src/legacy/firmware-upload-sweep';
import { JOB_HANDLERS } from '../../src/workers/handlers';
import { claimJob } from '../../src/workers/queue';
import { createJobRunner } from '../../src/workers/runner';
import { jobs } from '../../src/workers/schema';
import { eventually } from '../support/binaries';
import { archiveFor, legacyOrg, uploadMultipart } from '../support/legacy';
import { useTestServer } from '../support/server';

// No workers in the server itself: the test plays them.
const t = useTestServer({}, { workers: false });
const sweepJobs = () => t.server.platform.db.select().from(jobs).where(eq(jobs.kind, FIRMWARE_UPLOAD_SWEEP_JOB));
const ignore = () => {};

describe('the firmware upload sweep', () => {
  it('deletes the archive of an upload that died before its row, once the job falls due', async () => {
    const platform = t.server.platform;
    const id = randomUUID();
    const key = `legacy-firmware/${t.organizationId}/${id}.fw`;
    const hold = await holdUploadBlob(platform.db, id, key, ignore);
    await platform.blobs.put(key, Readable.from([Buffer.from('archive bytes')]));
    hold.stop();
    // The process dies here: no release. The job is not due yet...
    const [job] = await sweepJobs();
    expect(new Date(job.runAt).getTime()).toBeGreaterThan(Date.now() + 10_000);
    // ...until its hold runs out (moved to now rather than waited for).
    await platform.db.update(jobs).set({ runAt: new Date().toISOString() }).where(eq(jobs.id, job.id));
    const runner = createJobRunner(platform, JOB_HANDLERS, { pollMs: 100 });
    runner.start();
    try {
      await eventually(async () => (await platform.blobs.size(key)) === null, 15_000);
      await eventually(async () => (await sweepJobs()).length === 0, 15_000);
    } finally {
      await runner.stop();
    }
  });

  it('leaves no job after a finished upload, and a runner leaves its archive alone', async () => {
    const org = await legacyOrg(t, 'sweep');
    const archive = archiveFor(org, 'sweep');
    const uploaded = await uploadMultipart(t.url, '/firmwares', org.key, archive.bytes, { product_prn: org.productPrn });
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    expect(await sweepJobs()).toEqual([]);
    const url = (await org.api('GET', `/firmwares/${archive.uuid}?expand=url`)).body.firmware.url as string;
    expect((await fetch(url)).status).toBe(200);
  });

  it('refuses the row when a runner has claimed the job (it may be deleting the archive)', async () => {
    const platform = t.server.platform;
    const id = randomUUID();
    const hold = await holdUploadBlob(platform.db, id, `legacy-firmware/${t.organizationId}/${id}.fw`, ignore);
    hold.stop();
    await platform.db.update(jobs).set({ runAt: new Date().toISOString() }).where(eq(jobs.kind, FIRMWARE_UPLOAD_SWEEP_JOB));
    expect((await claimJob(platform.db, [FIRMWARE_UPLOAD_SWEEP_JOB], 60))?.kind).toBe(FIRMWARE_UPLOAD_SWEEP_JOB);
    const refused = await platform.db.transaction((tx) => hold.release(tx)).catch((error) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 503 });
    // The claimed job is still there for its runner.
    expect(await sweepJobs()).toHaveLength(1);
  });
});
