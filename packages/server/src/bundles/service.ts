/**
 * Bundles: an immutable, ordered list of artifact versions (a release ships a bundle). Only the
 * name may change. A bundle a release uses cannot be deleted.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { idFor, insertWithCallerId } from '../http/caller-id';
import { artifactVersions } from '../artifacts/schema';
import { guardArtifactVersionDelete } from '../artifacts/version-service';
import type { Database, Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { conflict, invalidField, notFound } from '../http/errors';
import { findOwnedRow, listOwnedRows } from '../read-path/owned-rows';
import type { ListQuery } from '../http/pagination';
import { organizationPrn, resourceIdFromPrn, resourcePrn } from '../core/prn';
import type { SearchFields } from '../search/search';
import { timestampsOf } from '../http/wire-fields';
import { bundleInUse } from './in-use';
import { bundleArtifactVersions, bundles } from './schema';

export type BundleRow = typeof bundles.$inferSelect;

export const BUNDLE_SEARCH: SearchFields = {
  name: { column: bundles.name, type: 'string', operators: [':', '-', '~'] },
  inserted_at: { column: bundles.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  updated_at: { column: bundles.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
};

/** Each bundle's artifact version ids in bundle order. */
export async function versionIdsOf(db: Executor, bundleIds: string[]): Promise<Map<string, string[]>> {
  const byBundle = new Map<string, string[]>(bundleIds.map((id) => [id, []]));
  if (bundleIds.length === 0) return byBundle;
  const rows = await db
    .select()
    .from(bundleArtifactVersions)
    .where(inArray(bundleArtifactVersions.bundleId, bundleIds))
    .orderBy(asc(bundleArtifactVersions.bundleId), asc(bundleArtifactVersions.index));
  for (const row of rows) byBundle.get(row.bundleId)?.push(row.artifactVersionId);
  return byBundle;
}

/**
 * spec 2 lists `artifact_versions` as ordered `{prn, index}`; other clients read a plain list of prns
 * (site/docs/canopy-core/reference/bundle-management/index.md documents both).
 * Both readers are served: `artifact_versions` carries `{prn, index}` and
 * `artifact_version_prns` the plain list, in the same order.
 */
export function bundleToWire(row: BundleRow, versionIds: string[]) {
  const prns = versionIds.map((id) => resourcePrn(row.organizationId, 'artifact_version', id));
  return {
    prn: resourcePrn(row.organizationId, 'bundle', row.id),
    organization_prn: organizationPrn(row.organizationId),
    name: row.name,
    artifact_versions: prns.map((prn, index) => ({ prn, index })),
    artifact_version_prns: prns,
    ...timestampsOf(row),
  };
}

export async function bundlesToWire(db: Executor, rows: BundleRow[]) {
  const versions = await versionIdsOf(db, rows.map((r) => r.id));
  return rows.map((row) => bundleToWire(row, versions.get(row.id) ?? []));
}

/** The organization's artifact version ids for the prns, in order; 422 naming the first bad one. */
async function resolveVersions(db: Executor, actor: Actor, prns: string[]): Promise<string[]> {
  const ids = prns.map((prn, i) => {
    const id = resourceIdFromPrn(prn, 'artifact_version', actor.organizationId);
    if (!id) throw invalidField(`artifact_version_prns.${i}`, 'not_found');
    return id;
  });
  const found = await db
    .select({ id: artifactVersions.id })
    .from(artifactVersions)
    .where(and(eq(artifactVersions.organizationId, actor.organizationId), inArray(artifactVersions.id, ids)))
    .for('key share');
  const known = new Set(found.map((r) => r.id));
  const missing = ids.findIndex((id) => !known.has(id));
  if (missing >= 0) throw invalidField(`artifact_version_prns.${missing}`, 'not_found');
  return ids;
}

export interface NewBundle {
  id?: string;
  name?: string | null;
  artifact_version_prns: string[];
}

export async function createBundle(db: Database, actor: Actor, input: NewBundle): Promise<BundleRow> {
  const id = idFor(input.id);
  return db.transaction(async (tx) => {
    const versionIds = await resolveVersions(tx, actor, input.artifact_version_prns);
    const row = await insertWithCallerId('bundle', 'bundles', id, async () => (await tx.insert(bundles).values({ id, organizationId: actor.organizationId, name: input.name ?? null }).returning())[0]);
    await tx.insert(bundleArtifactVersions).values(versionIds.map((artifactVersionId, index) => ({ bundleId: id, artifactVersionId, index })));
    return row;
  });
}

export async function getBundle(db: Executor, actor: Actor, prn: string, field?: string): Promise<BundleRow> {
  const row = await findOwnedRow(db, bundles, 'bundle', actor.organizationId, prn);
  if (!row) throw field ? invalidField(field, 'not_found') : notFound('bundle', prn);
  return row;
}

export async function listBundles(db: Executor, actor: Actor, query: ListQuery) {
  return listOwnedRows(db, bundles, actor.organizationId, query, BUNDLE_SEARCH);
}

export interface BundleChanges {
  name?: string | null;
  /** Immutable: accepted only unchanged (clients send the whole object back). */
  artifact_version_prns?: string[];
}

export async function updateBundle(db: Executor, actor: Actor, prn: string, changes: BundleChanges): Promise<BundleRow> {
  const current = await getBundle(db, actor, prn);
  if (changes.artifact_version_prns !== undefined) {
    const wire = bundleToWire(current, (await versionIdsOf(db, [current.id])).get(current.id) ?? []);
    if (JSON.stringify(changes.artifact_version_prns) !== JSON.stringify(wire.artifact_version_prns)) throw invalidField('artifact_version_prns', 'immutable');
  }
  if (changes.name === undefined) return current;
  const [row] = await db.update(bundles).set({ name: changes.name, updatedAt: sql`now()` }).where(eq(bundles.id, current.id)).returning();
  if (!row) throw notFound('bundle', prn);
  return row;
}

export async function deleteBundle(db: Database, actor: Actor, prn: string): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await getBundle(tx, actor, prn);
    await tx.select({ id: bundles.id }).from(bundles).where(eq(bundles.id, current.id)).for('update');
    if (await bundleInUse(tx, current.id)) throw conflict('bundle_in_use', { prn });
    await tx.delete(bundles).where(eq(bundles.id, current.id));
  });
}

// A bundle is immutable, so the artifact versions it lists must stay.
guardArtifactVersionDelete(async (tx, version) => {
  const [held] = await tx.select({ id: bundleArtifactVersions.bundleId }).from(bundleArtifactVersions).where(eq(bundleArtifactVersions.artifactVersionId, version.id)).limit(1);
  if (held) throw conflict('artifact_version_in_bundle', { prn: resourcePrn(version.organizationId, 'artifact_version', version.id) });
});
