/**
 * What other contexts (releases, the device API) need of binaries, with stable signatures:
 *
 *   manifestForBundle(db, platform, organizationId, bundleId, target?)  the manifest entries of
 *     api-contract.md section 5, in bundle order, each with a download URL valid 24 hours;
 *   isBundleDistributable(db, bundleId, target?)  true when every binary the bundle resolves to
 *     is signed (and every artifact version resolves to at least one).
 *
 * A bundle resolves, per artifact version, to its live binaries (not destroyed); with a target,
 * to the one for that target only. Only signable and signed binaries have bytes to download, so
 * only they appear in a manifest.
 */
import { and, asc, eq, inArray, ne } from 'drizzle-orm';
import { artifacts, artifactVersions } from '../artifacts/schema';
import { bundleArtifactVersions } from '../bundles/schema';
import type { Executor } from '../db/connection';
import { resourcePrn } from '../http/prn';
import type { Platform } from '../platform';
import { signingKeys } from '../signing-keys/schema';
import { publicKeyPem } from '../signing-keys/service';
import { downloadUrlFor, DOWNLOADABLE_STATES } from './download';
import { binaries, binarySignatures } from './schema';
import type { BinaryRow } from './wire';

export interface ManifestSignature {
  signature: string;
  signing_key_prn: string;
  /** The signing key as PEM SPKI. */
  public_value: string;
}

export interface ManifestEntry {
  binary_prn: string;
  artifact: { prn: string; name: string };
  artifact_version: { prn: string; version: string };
  custom_metadata: Record<string, unknown> | null;
  hash: string;
  size: number;
  target: string;
  url: string;
  signatures: ManifestSignature[];
}

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
    .where(and(inArray(binaries.artifactVersionId, versionIds), ne(binaries.state, 'destroyed'), target ? eq(binaries.target, target) : undefined))
    .orderBy(asc(binaries.target));
  const resolved = rows.flatMap((r) =>
    live
      .filter((b) => b.artifactVersionId === r.versionId)
      .map((binary) => ({ binary, artifact: { id: r.artifactId, name: r.artifactName }, version: { id: r.versionId, version: r.version } })),
  );
  return { versionIds, resolved };
}

export async function manifestForBundle(db: Executor, platform: Platform, organizationId: string, bundleId: string, target?: string | null): Promise<ManifestEntry[]> {
  const { resolved } = await resolveBundle(db, bundleId, target);
  const downloadable = resolved.filter((r) => r.binary.organizationId === organizationId && DOWNLOADABLE_STATES.has(r.binary.state));
  const ids = downloadable.map((r) => r.binary.id);
  const signatures = ids.length
    ? await db
        .select({ binaryId: binarySignatures.binaryId, signature: binarySignatures.signature, keyId: signingKeys.id, keyValue: signingKeys.value, organizationId: signingKeys.organizationId })
        .from(binarySignatures)
        .innerJoin(signingKeys, eq(signingKeys.id, binarySignatures.signingKeyId))
        .where(inArray(binarySignatures.binaryId, ids))
        .orderBy(asc(binarySignatures.insertedAt))
    : [];
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
      signatures: signatures
        .filter((s) => s.binaryId === binary.id)
        .map((s) => ({ signature: s.signature, signing_key_prn: resourcePrn(s.organizationId, 'signing_key', s.keyId), public_value: publicKeyPem({ value: s.keyValue }) })),
    })),
  );
}

export async function isBundleDistributable(db: Executor, bundleId: string, target?: string | null): Promise<boolean> {
  const { versionIds, resolved } = await resolveBundle(db, bundleId, target);
  if (versionIds.length === 0) return false;
  const covered = new Set(resolved.map((r) => r.version.id));
  return versionIds.every((id) => covered.has(id)) && resolved.every((r) => r.binary.state === 'signed');
}
