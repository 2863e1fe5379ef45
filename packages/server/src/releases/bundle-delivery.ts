/**
 * ADAPTER (temporary) for the contract of `src/binaries/manifest.ts`, which the binaries engineer
 * is building on branch `binaries`:
 *   manifestForBundle(db, platform, organizationId, bundleId, target?) -> manifest entries
 *   isBundleDistributable(db, bundleId) -> every binary the bundle resolves to is signed
 * Until it lands these read the binaries/bundles tables on main. Known gaps, filled by the real
 * module: `signatures` is empty (no signature table yet) and `url` is null (no signed-URL store).
 * When merging, delete this file and re-export from '../binaries/manifest'.
 */
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import { artifacts, artifactVersions } from '../artifacts/schema';
import { binaries } from '../binaries/schema';
import { bundleArtifactVersions } from '../bundles/schema';
import type { Executor } from '../db/connection';
import { resourcePrn } from '../http/prn';
import type { Platform } from '../platform';

export interface ManifestEntry {
  binary_prn: string;
  artifact: { prn: string; name: string };
  artifact_version: { prn: string; version: string };
  custom_metadata: Record<string, unknown> | null;
  hash: string;
  size: number;
  target: string;
  url: string | null;
  signatures: { signature: string; signing_key_prn: string; public_value: string }[];
}

/** True when every artifact version of the bundle has live binaries and all of them are signed. */
export async function isBundleDistributable(db: Executor, bundleId: string): Promise<boolean> {
  const result = await db.execute(sql`
    select count(*) > 0 and bool_and(b.signed_count > 0 and b.unsigned_count = 0) as distributable
    from (
      select count(*) filter (where ${binaries.state} = 'signed') as signed_count,
             count(*) filter (where ${binaries.state} not in ('signed', 'destroyed')) as unsigned_count
      from ${bundleArtifactVersions}
      left join ${binaries} on ${binaries.artifactVersionId} = ${bundleArtifactVersions.artifactVersionId}
      where ${bundleArtifactVersions.bundleId} = ${bundleId}
      group by ${bundleArtifactVersions.artifactVersionId}
    ) b`);
  // Both drivers answer { rows }.
  const [row] = (result as unknown as { rows: { distributable: boolean | null }[] }).rows;
  return row?.distributable === true;
}

export async function manifestForBundle(db: Executor, _platform: Platform, organizationId: string, bundleId: string, target?: string | null): Promise<ManifestEntry[]> {
  const rows = await db
    .select({ binary: binaries, version: artifactVersions, artifact: artifacts })
    .from(bundleArtifactVersions)
    .innerJoin(artifactVersions, eq(artifactVersions.id, bundleArtifactVersions.artifactVersionId))
    .innerJoin(artifacts, eq(artifacts.id, artifactVersions.artifactId))
    .innerJoin(binaries, and(eq(binaries.artifactVersionId, artifactVersions.id), ne(binaries.state, 'destroyed')))
    .where(and(eq(bundleArtifactVersions.bundleId, bundleId), target ? eq(binaries.target, target) : undefined))
    .orderBy(asc(bundleArtifactVersions.index), asc(binaries.target));
  return rows.map(({ binary, version, artifact }) => ({
    binary_prn: resourcePrn(organizationId, 'binary', binary.id),
    artifact: { prn: resourcePrn(organizationId, 'artifact', artifact.id), name: artifact.name },
    artifact_version: { prn: resourcePrn(organizationId, 'artifact_version', version.id), version: version.version },
    custom_metadata: binary.customMetadata,
    hash: binary.hash,
    size: binary.size,
    target: binary.target,
    url: null,
    signatures: [],
  }));
}
