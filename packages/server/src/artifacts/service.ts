/**
 * Artifacts: named things a device installs (a rootfs, a bootloader, an app), each with versions.
 * An artifact is deleted only once it has no versions left, so nothing a bundle points at vanishes.
 */
import { organizationPrn, resourcePrn } from '../core/prn';
import { eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { checkCustomMetadata } from '../http/custom-metadata';
import { conflict, notFound } from '../http/errors';
import { listOwnedRows, requireOwnedRow } from '../read-path/owned-rows';
import type { ListQuery } from '../http/pagination';
import type { SearchFields } from '../search/search';
import { timestampsOf } from '../http/wire-fields';
import { idFor, insertWithCallerId } from '../http/caller-id';
import { artifacts, artifactVersions } from './schema';

export type ArtifactRow = typeof artifacts.$inferSelect;

export function artifactToWire(row: ArtifactRow) {
  return {
    prn: resourcePrn(row.organizationId, 'artifact', row.id),
    organization_prn: organizationPrn(row.organizationId),
    name: row.name,
    description: row.description,
    custom_metadata: row.customMetadata,
    ...timestampsOf(row),
  };
}

export const ARTIFACT_SEARCH: SearchFields = {
  name: { column: artifacts.name, type: 'string', operators: [':', '-', '~'] },
  description: { column: artifacts.description, type: 'string', operators: [':', '-', '~'] },
  inserted_at: { column: artifacts.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  updated_at: { column: artifacts.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
};

export interface ArtifactFields {
  name?: string;
  description?: string | null;
  custom_metadata?: Record<string, unknown> | null;
}

/** The columns a create or PATCH body sets; undefined leaves a column as it is. */
function columnsOf(input: ArtifactFields) {
  checkCustomMetadata(input.custom_metadata);
  return { name: input.name, description: input.description, customMetadata: input.custom_metadata };
}

export async function createArtifact(db: Executor, actor: Actor, input: ArtifactFields & { name: string; id?: string }) {
  const id = idFor(input.id);
  const values = { ...columnsOf(input), name: input.name, id, organizationId: actor.organizationId };
  return insertWithCallerId('artifact', 'artifacts', id, async () => (await db.insert(artifacts).values(values).returning())[0]);
}

/** The artifact a prn names in the caller's organization; 404, or 422 on `field` when one is given. */
export function getArtifact(db: Executor, actor: Actor, prn: string, field?: string): Promise<ArtifactRow> {
  return requireOwnedRow(db, artifacts, 'artifact', actor.organizationId, prn, field);
}

export function listArtifacts(db: Executor, actor: Actor, query: ListQuery) {
  return listOwnedRows(db, artifacts, actor.organizationId, query, ARTIFACT_SEARCH);
}

export async function updateArtifact(db: Executor, actor: Actor, prn: string, changes: ArtifactFields) {
  const current = await getArtifact(db, actor, prn);
  const [row] = await db
    .update(artifacts)
    .set({ ...columnsOf(changes), updatedAt: sql`now()` })
    .where(eq(artifacts.id, current.id))
    .returning();
  if (!row) throw notFound('artifact', prn); // deleted since we read it
  return row;
}

/** 409 `artifact_has_versions` while any version remains. */
export async function deleteArtifact(db: Database, actor: Actor, prn: string): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await getArtifact(tx, actor, prn);
    // The row lock waits out a version being created under it (the insert holds a key-share
    // lock on the artifact), so the check below sees that version.
    await tx.select({ id: artifacts.id }).from(artifacts).where(eq(artifacts.id, current.id)).for('update');
    const [version] = await tx.select({ id: artifactVersions.id }).from(artifactVersions).where(eq(artifactVersions.artifactId, current.id)).limit(1);
    if (version) throw conflict('artifact_has_versions', { prn });
    await tx.delete(artifacts).where(eq(artifacts.id, current.id));
  });
}
