/**
 * Adds to each device manifest entry the delta from the binary the device runs (the same
 * artifact and target in the bundle it reports, or its reported release's bundle), when that
 * delta is ready: its URL (signed like the binary's), size, hash, and the base binary's hash the
 * device must hold. Entries without one stay as they were; the device then downloads the binary.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { artifactVersions } from '../artifacts/schema';
import type { ManifestEntry } from '../binaries/manifest-schemas';
import { binaries } from '../binaries/schema';
import { bundleArtifactVersions } from '../bundles/schema';
import { resourceIdFromPrn, resourcePrn } from '../core/prn';
import type { Executor } from '../db/connection';
import type { Platform } from '../platform';
import { releases } from '../releases/schema';
import { blobDownloadPath } from '../storage/download-routes';
import { binaryDeltas } from './schema';

async function reportedBundleId(db: Executor, organizationId: string, reported: { releasePrn?: string | null; bundlePrn?: string | null }): Promise<string | null> {
  const bundleId = resourceIdFromPrn(reported.bundlePrn, 'bundle', organizationId);
  if (bundleId) return bundleId;
  const releaseId = resourceIdFromPrn(reported.releasePrn, 'release', organizationId);
  if (!releaseId) return null;
  const [row] = await db.select({ bundleId: releases.bundleId }).from(releases).where(and(eq(releases.id, releaseId), eq(releases.organizationId, organizationId)));
  return row?.bundleId ?? null;
}

export async function withDeltas(db: Executor, platform: Platform, organizationId: string, reported: { releasePrn?: string | null; bundlePrn?: string | null }, manifest: ManifestEntry[]): Promise<ManifestEntry[]> {
  if (manifest.length === 0) return manifest;
  const baseBundleId = await reportedBundleId(db, organizationId, reported);
  if (!baseBundleId) return manifest;
  const targetIds = manifest.map((entry) => resourceIdFromPrn(entry.binary_prn, 'binary', organizationId)).filter((id): id is string => id !== null);
  const ready = await db
    .select({ targetId: binaryDeltas.targetBinaryId, baseId: binaries.id, baseHash: binaries.hash, key: binaryDeltas.blobKey, size: binaryDeltas.size, hash: binaryDeltas.hash })
    .from(binaryDeltas)
    .innerJoin(binaries, eq(binaries.id, binaryDeltas.baseBinaryId))
    .innerJoin(artifactVersions, eq(artifactVersions.id, binaries.artifactVersionId))
    .innerJoin(bundleArtifactVersions, and(eq(bundleArtifactVersions.artifactVersionId, artifactVersions.id), eq(bundleArtifactVersions.bundleId, baseBundleId)))
    .where(and(eq(binaryDeltas.organizationId, organizationId), eq(binaryDeltas.state, 'ready'), inArray(binaryDeltas.targetBinaryId, targetIds), inArray(binaries.state, ['signable', 'signed'])));
  if (ready.length === 0) return manifest;
  const ttl = platform.config.downloadUrlTtlSeconds;
  return Promise.all(
    manifest.map(async (entry) => {
      const delta = ready.find((d) => resourcePrn(organizationId, 'binary', d.targetId) === entry.binary_prn);
      if (!delta || !delta.key || delta.size === null || !delta.hash) return entry;
      const url = (await platform.blobs.presignDownload(delta.key, ttl)) ?? platform.urls.sign('download', blobDownloadPath(delta.key), ttl);
      return { ...entry, delta: { url, size: delta.size, hash: delta.hash, base_binary_prn: resourcePrn(organizationId, 'binary', delta.baseId), base_hash: delta.baseHash } };
    }),
  );
}
