/**
 * What other contexts (the update check, the device API) need of binaries, with stable signatures:
 * - manifestForBundle(db, platform, organizationId, bundleId, target?): the manifest entries
 *   (device-api.mdx, "Checking for an update"), in bundle order, each with a URL valid 24 hours;
 * - isBundleDistributable(db, bundleId, target?): every binary the bundle resolves to is signed
 *   (and every artifact version resolves to at least one).
 * A bundle resolves, per artifact version, to its live binaries (not destroyed); with a target,
 * to the one for that target only. Only signable and signed binaries have bytes to download, so
 * only they appear in a manifest.
 */
import { and, asc, eq, inArray, ne } from 'drizzle-orm';
import { artifacts, artifactVersions } from '../artifacts/schema';
import { bundleArtifactVersions } from '../bundles/schema';
import type { Executor } from '../db/connection';
import { resourcePrn } from '../core/prn';
import type { Platform } from '../platform';
import { signingKeys } from '../signing-keys/schema';
import { publicKeyPem } from '../signing-keys/service';
import { downloadUrlFor, DOWNLOADABLE_STATES } from './download';
import { binaries, binarySignatures } from './schema';
import type { BinaryRow } from './wire';
import type { ManifestEntry } from './manifest-schemas';

interface Resolved {
  binary: BinaryRow;
  artifact: { id: string; name: string };
  version: { id: string; version: string };
}

/** The bundle's live binaries in bundle order (then by target), with their artifact and version. */
async function resolveBundle(db: Executor, bundleId: string, target?: string | null): Promise<{ versionIds: string[]; resolved: Resolved[] }> {
  const rows = await db
    .select({ index: bundleArtifactVersions.index, versionId: artifactVersions.id, version: artifactVersions.version, artifactId: artifacts.id, artifactName: artifacts.name })
    .from(bundleArtifactVersions)
    .innerJoin(artifactVersions, eq(artifactVersions.id, bundleArtifactVersions.artifactVersionId))
    .innerJoin(artifacts, eq(artifacts.id, artifactVersions.artifactId))
    .where(eq(bundleArtifactVersions.bundleId, bundleId))
    .orderBy(asc(bundleArtifactVersions.index));
  const versionIds = rows.map((r) => r.versionId);
  if (versionIds.length === 0) return { versionIds, resolved: [] };
  const live = await db
    .select()
    .from(binaries)
    .where(and(inArray(binaries.artifactVersionId, versionIds), ne(binaries.state, 'destroyed'), target ? eq(binaries.target, target) : undefined));
  // Targets in code-point order, not the database's collation: a bundle signature signs this
  // order and clients rebuild it (@canopy/sdk bundle-signatures.ts), so it must not vary by locale.
  live.sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
  const resolved = rows.flatMap((r) =>
    live
      .filter((b) => b.artifactVersionId === r.versionId)
      .map((binary) => ({ binary, artifact: { id: r.artifactId, name: r.artifactName }, version: { id: r.versionId, version: r.version } })),
  );
  return { versionIds, resolved };
}

interface SignatureRow {
  binaryId: string;
  signature: string;
  keyId: string;
  keyValue: string;
  organizationId: string;
}

/** Everything a manifest needs but its download URLs (which are minted per answer). */
interface BundleSnapshot {
  versionIds: string[];
  resolved: Resolved[];
  signatures: SignatureRow[];
}

async function signaturesOf(db: Executor, binaryIds: string[]): Promise<SignatureRow[]> {
  if (binaryIds.length === 0) return [];
  return db
    .select({ binaryId: binarySignatures.binaryId, signature: binarySignatures.signature, keyId: signingKeys.id, keyValue: signingKeys.value, organizationId: signingKeys.organizationId })
    .from(binarySignatures)
    .innerJoin(signingKeys, eq(signingKeys.id, binarySignatures.signingKeyId))
    .where(inArray(binarySignatures.binaryId, binaryIds))
    .orderBy(asc(binarySignatures.insertedAt));
}

async function loadSnapshot(db: Executor, bundleId: string, target?: string | null): Promise<BundleSnapshot> {
  const { versionIds, resolved } = await resolveBundle(db, bundleId, target);
  const downloadable = resolved.filter((r) => DOWNLOADABLE_STATES.has(r.binary.state)).map((r) => r.binary.id);
  return { versionIds, resolved, signatures: await signaturesOf(db, downloadable) };
}

async function manifestOfSnapshot(platform: Platform, organizationId: string, snapshot: BundleSnapshot): Promise<ManifestEntry[]> {
  const downloadable = snapshot.resolved.filter((r) => r.binary.organizationId === organizationId && DOWNLOADABLE_STATES.has(r.binary.state));
  return Promise.all(
    downloadable.map(async ({ binary, artifact, version }) => ({
      binary_prn: resourcePrn(organizationId, 'binary', binary.id),
      artifact: { prn: resourcePrn(organizationId, 'artifact', artifact.id), name: artifact.name },
      artifact_version: { prn: resourcePrn(organizationId, 'artifact_version', version.id), version: version.version },
      custom_metadata: binary.customMetadata,
      hash: binary.hash,
      size: binary.size,
      target: binary.target,
      url: await downloadUrlFor(platform, binary),
      signatures: snapshot.signatures
        .filter((s) => s.binaryId === binary.id)
        .map((s) => ({ signature: s.signature, signing_key_prn: resourcePrn(s.organizationId, 'signing_key', s.keyId), public_value: publicKeyPem({ value: s.keyValue }) })),
    })),
  );
}

function distributable({ versionIds, resolved }: Pick<BundleSnapshot, 'versionIds' | 'resolved'>): boolean {
  if (versionIds.length === 0) return false;
  const covered = new Set(resolved.map((r) => r.version.id));
  return versionIds.every((id) => covered.has(id)) && resolved.every((r) => r.binary.state === 'signed');
}

export async function manifestForBundle(db: Executor, platform: Platform, organizationId: string, bundleId: string, target?: string | null): Promise<ManifestEntry[]> {
  return manifestOfSnapshot(platform, organizationId, await loadSnapshot(db, bundleId, target));
}

export async function isBundleDistributable(db: Executor, bundleId: string, target?: string | null): Promise<boolean> {
  return distributable(await resolveBundle(db, bundleId, target));
}

/**
 * The binaries a manifest for `target` (every target when absent) lists, in its order, as a
 * bundle signature signs them (bundle-signatures/service.ts); `signable` is false when an
 * artifact version resolves to none or a binary's bytes are not verified yet.
 */
export async function bundleBinariesToSign(db: Executor, organizationId: string, bundleId: string, target?: string | null) {
  const resolvedBundle = await resolveBundle(db, bundleId, target);
  const covered = new Set(resolvedBundle.resolved.map((r) => r.version.id));
  const signable =
    resolvedBundle.versionIds.length > 0 &&
    resolvedBundle.versionIds.every((id) => covered.has(id)) &&
    resolvedBundle.resolved.every((r) => r.binary.state === 'signable' || r.binary.state === 'signed');
  const binaries = resolvedBundle.resolved.map(({ binary }) => ({ binary_prn: resourcePrn(organizationId, 'binary', binary.id), target: binary.target, size: binary.size, hash: binary.hash }));
  return { signable, binaries };
}

/*
 * The update check's cached forms (updates/inputs.ts, updates/answers.ts): every
 * check asks whether its bundle is distributable and every `update` answer lists its manifest,
 * which is 2-3 queries each time for state that changes rarely.
 *
 * Cache rules: per database handle (server instance) and (bundle, target); only DISTRIBUTABLE
 * snapshots are kept, for at most SNAPSHOT_TTL_MS. So a bundle that becomes distributable (its
 * last binary signed) is offered at once, while a change that makes a distributable bundle
 * undistributable or alters its manifest (a signature removed or added, a binary destroyed, a
 * binary for the target added) reaches update checks within SNAPSHOT_TTL_MS, in this process
 * and in every other: a bounded staleness of <= 1 s. `forgetBundleSnapshots()` drops the cache
 * (the binaries context may call it after its writes for in-process immediacy). Everything else
 * (the bundles API, the device API's current manifest) keeps the uncached functions above.
 */
export const SNAPSHOT_TTL_MS = 1_000;
const MAX_SNAPSHOTS = 10_000;
const snapshotCaches = new WeakMap<object, Map<string, { snapshot: BundleSnapshot; expiresAt: number; generation: number }>>();
let generation = 0;
const snapshotLoads = new WeakMap<object, Map<string, Promise<BundleSnapshot | null>>>();

/** Drops every cached snapshot of this process. */
export function forgetBundleSnapshots(): void {
  generation++;
}

async function distributableSnapshot(db: Executor, bundleId: string, target?: string | null): Promise<BundleSnapshot | null> {
  let cache = snapshotCaches.get(db);
  if (!cache) snapshotCaches.set(db, (cache = new Map()));
  let loading = snapshotLoads.get(db);
  if (!loading) snapshotLoads.set(db, (loading = new Map()));
  const key = `${bundleId}|${target || ''}`;
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.expiresAt > now && hit.generation === generation) return hit.snapshot;
  // Checks that miss together share one load (no burst of identical queries at each expiry).
  const pending = loading.get(key);
  if (pending) return pending;
  const startedAt = generation;
  const load = (async () => {
    const resolvedBundle = await resolveBundle(db, bundleId, target);
    if (!distributable(resolvedBundle)) {
      cache.delete(key);
      return null;
    }
    const snapshot: BundleSnapshot = { ...resolvedBundle, signatures: await signaturesOf(db, resolvedBundle.resolved.map((r) => r.binary.id)) };
    if (cache.size >= MAX_SNAPSHOTS) cache.clear();
    cache.set(key, { snapshot, expiresAt: now + SNAPSHOT_TTL_MS, generation: startedAt });
    return snapshot;
  })().finally(() => loading.delete(key));
  loading.set(key, load);
  return load;
}

/** isBundleDistributable, answered from a snapshot at most SNAPSHOT_TTL_MS old when it is distributable. */
export async function isBundleDistributableCached(db: Executor, bundleId: string, target?: string | null): Promise<boolean> {
  return (await distributableSnapshot(db, bundleId, target)) !== null;
}

/** manifestForBundle from the same snapshot; an undistributable bundle is read fresh. */
export async function manifestForBundleCached(db: Executor, platform: Platform, organizationId: string, bundleId: string, target?: string | null): Promise<ManifestEntry[]> {
  const snapshot = await distributableSnapshot(db, bundleId, target);
  return snapshot ? manifestOfSnapshot(platform, organizationId, snapshot) : manifestForBundle(db, platform, organizationId, bundleId, target);
}
