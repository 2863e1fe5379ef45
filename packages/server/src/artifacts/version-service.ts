/**
 * Artifact versions: one version (1-128 characters, unique per artifact) of an artifact; the
 * binaries for each target hang off a version. The version stays with its artifact for life.
 */
import { eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { isUniqueViolation } from '../db/errors';
import type { Actor } from '../http/actor';
import { checkCustomMetadata } from '../http/custom-metadata';
import { invalidField, notFound } from '../http/errors';
import { listOwnedRows, requireOwnedRow } from '../read-path/owned-rows';
import type { ListQuery } from '../http/pagination';
import { organizationPrn, resourceIdFromPrn, resourcePrn } from '../core/prn';
import type { SearchFields } from '../search/search';
import { timestampsOf } from '../http/wire-fields';
import { idFor, insertWithCallerId } from '../http/caller-id';
import { artifacts, artifactVersions } from './schema';
import { getArtifact } from './service';

export type ArtifactVersionRow = typeof artifactVersions.$inferSelect;

export function artifactVersionToWire(row: ArtifactVersionRow) {
  return {
    prn: resourcePrn(row.organizationId, 'artifact_version', row.id),
    organization_prn: organizationPrn(row.organizationId),
    artifact_prn: resourcePrn(row.organizationId, 'artifact', row.artifactId),
    version: row.version,
    description: row.description,
    custom_metadata: row.customMetadata,
    ...timestampsOf(row),
  };
}

/** Per request, because artifact prns resolve only within the caller's organization. */
function artifactVersionSearch(organizationId: string): SearchFields {
  return {
    version: { column: artifactVersions.version, type: 'string', operators: [':', '-', '~'] },
    description: { column: artifactVersions.description, type: 'string', operators: [':', '-', '~'] },
    artifact_prn: { column: artifactVersions.artifactId, type: 'prn', operators: [':'], resolve: (prn) => resourceIdFromPrn(prn, 'artifact', organizationId) },
    inserted_at: { column: artifactVersions.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
    updated_at: { column: artifactVersions.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  };
}

/**
 * Checks another context runs before a version is deleted, inside the delete's transaction; a
 * check refuses by throwing (binaries: 409 while the version has binaries). Registered at start
 * so this context does not import the ones built on it.
 */
export type ArtifactVersionDeleteGuard = (tx: Executor, version: ArtifactVersionRow) => Promise<void>;
const deleteGuards: ArtifactVersionDeleteGuard[] = [];
export function guardArtifactVersionDelete(guard: ArtifactVersionDeleteGuard): void {
  deleteGuards.push(guard);
}

export interface ArtifactVersionFields {
  version?: string;
  description?: string | null;
  custom_metadata?: Record<string, unknown> | null;
}

/** The columns a create or PATCH body sets; undefined leaves a column as it is. */
function columnsOf(input: ArtifactVersionFields) {
  checkCustomMetadata(input.custom_metadata);
  return { version: input.version, description: input.description, customMetadata: input.custom_metadata };
}

function versionTaken(error: unknown) {
  return isUniqueViolation(error, 'artifact_versions_artifact_version_unique') ? invalidField('version', 'taken') : error;
}

export interface NewArtifactVersion extends ArtifactVersionFields {
  id?: string;
  artifact_prn: string;
  version: string;
}

export async function createArtifactVersion(db: Database, actor: Actor, input: NewArtifactVersion) {
  const id = idFor(input.id);
  return db.transaction(async (tx) => {
    const artifact = await getArtifact(tx, actor, input.artifact_prn, 'artifact_prn');
    // Holds the artifact against a concurrent delete until this version is in.
    const [held] = await tx.select({ id: artifacts.id }).from(artifacts).where(eq(artifacts.id, artifact.id)).for('key share');
    if (!held) throw invalidField('artifact_prn', 'not_found');
    const values = { ...columnsOf(input), version: input.version, id, organizationId: actor.organizationId, artifactId: artifact.id };
    try {
      return await insertWithCallerId('artifact_version', 'artifact_versions', id, async () => (await tx.insert(artifactVersions).values(values).returning())[0]);
    } catch (error) {
      throw versionTaken(error);
    }
  });
}

/** The version a prn names in the caller's organization; 404, or 422 on `field` when one is given. */
export function getArtifactVersion(db: Executor, actor: Actor, prn: string, field?: string): Promise<ArtifactVersionRow> {
  return requireOwnedRow(db, artifactVersions, 'artifact_version', actor.organizationId, prn, field);
}

export interface ArtifactVersionListQuery extends ListQuery {
  /** Only the versions of this artifact; a prn that is not one of the organization's matches none. */
  artifact_prn?: string;
}

export function listArtifactVersions(db: Executor, actor: Actor, query: ArtifactVersionListQuery) {
  const artifactId = query.artifact_prn === undefined ? undefined : resourceIdFromPrn(query.artifact_prn, 'artifact', actor.organizationId);
  const ofArtifact = artifactId === undefined ? undefined : artifactId === null ? sql`false` : eq(artifactVersions.artifactId, artifactId);
  return listOwnedRows(db, artifactVersions, actor.organizationId, query, artifactVersionSearch(actor.organizationId), ofArtifact);
}

export interface ArtifactVersionChanges extends ArtifactVersionFields {
  /** Accepted only unchanged: clients send the whole object back. */
  artifact_prn?: string;
}

export async function updateArtifactVersion(db: Executor, actor: Actor, prn: string, changes: ArtifactVersionChanges) {
  const current = await getArtifactVersion(db, actor, prn);
  if (changes.artifact_prn !== undefined && changes.artifact_prn !== artifactVersionToWire(current).artifact_prn) throw invalidField('artifact_prn', 'immutable');
  try {
    const [row] = await db
      .update(artifactVersions)
      .set({ ...columnsOf(changes), updatedAt: sql`now()` })
      .where(eq(artifactVersions.id, current.id))
      .returning();
    if (!row) throw notFound('artifact_version', prn); // deleted since we read it
    return row;
  } catch (error) {
    throw versionTaken(error);
  }
}

export async function deleteArtifactVersion(db: Database, actor: Actor, prn: string): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await getArtifactVersion(tx, actor, prn);
    await tx.select({ id: artifactVersions.id }).from(artifactVersions).where(eq(artifactVersions.id, current.id)).for('update');
    for (const guard of deleteGuards) await guard(tx, current);
    await tx.delete(artifactVersions).where(eq(artifactVersions.id, current.id));
  });
}
