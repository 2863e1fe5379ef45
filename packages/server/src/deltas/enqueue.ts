/**
 * Which deltas a new release needs: for each binary of its bundle, one from the binary with the
 * same artifact and target in each of the cohort's RECENT_RELEASES latest other releases (what
 * its devices may be running). Called inside the transaction that creates the release, so the
 * rows and their jobs commit with it. A pair that already has a row is left as it is.
 */
import { randomUUID } from 'node:crypto';
import { and, desc, eq, ne, sql } from 'drizzle-orm';
import { artifactVersions } from '../artifacts/schema';
import { binaries } from '../binaries/schema';
import { bundleArtifactVersions } from '../bundles/schema';
import type { Executor } from '../db/connection';
import { releases } from '../releases/schema';
import { enqueueJob } from '../workers/queue';
import { DELTA_JOB, deltaJobKey } from './delta-job';
import { binaryDeltas } from './schema';

export const RECENT_RELEASES = 3;

/** Live binaries of a bundle with the artifact and target that pair them across releases. */
async function bundleBinaries(tx: Executor, bundleId: string) {
  return tx
    .select({ id: binaries.id, artifactId: artifactVersions.artifactId, target: binaries.target })
    .from(bundleArtifactVersions)
    .innerJoin(artifactVersions, eq(artifactVersions.id, bundleArtifactVersions.artifactVersionId))
    .innerJoin(binaries, and(eq(binaries.artifactVersionId, artifactVersions.id), ne(binaries.state, 'destroyed')))
    .where(eq(bundleArtifactVersions.bundleId, bundleId));
}

export async function enqueueReleaseDeltas(tx: Executor, organizationId: string, release: { id: string; cohortId: string; bundleId: string }): Promise<number> {
  const targets = await bundleBinaries(tx, release.bundleId);
  const recent = await tx
    .select({ bundleId: releases.bundleId })
    .from(releases)
    .where(and(eq(releases.cohortId, release.cohortId), ne(releases.id, release.id)))
    .orderBy(desc(releases.insertedAt))
    .limit(RECENT_RELEASES);
  let enqueued = 0;
  for (const { bundleId } of recent) {
    for (const base of await bundleBinaries(tx, bundleId)) {
      const target = targets.find((t) => t.artifactId === base.artifactId && t.target === base.target);
      if (!target || target.id === base.id) continue;
      const id = randomUUID();
      const inserted = await tx
        .insert(binaryDeltas)
        .values({ id, organizationId, baseBinaryId: base.id, targetBinaryId: target.id })
        .onConflictDoNothing()
        .returning({ id: binaryDeltas.id });
      if (inserted.length === 0) continue;
      await enqueueJob(tx, { kind: DELTA_JOB, key: deltaJobKey(base.id, target.id), payload: { delta_id: id } });
      enqueued++;
    }
  }
  return enqueued;
}

/** Deltas whose target is this binary, for the admin API. */
export const deltasOf = (db: Executor, organizationId: string, targetBinaryId: string) =>
  db
    .select()
    .from(binaryDeltas)
    .where(and(eq(binaryDeltas.organizationId, organizationId), eq(binaryDeltas.targetBinaryId, targetBinaryId)))
    .orderBy(sql`${binaryDeltas.insertedAt} desc`);
