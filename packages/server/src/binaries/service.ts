/**
 * Binaries: the bytes of one artifact version for one target. This file holds the record's
 * life (create, read, list, edit, delete); the state machine's moves are in transitions.ts,
 * parts in parts.ts, signatures in signatures.ts.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { isUniqueViolation } from '../db/errors';
import { idFor, insertWithCallerId } from '../http/caller-id';
import { getArtifactVersion, guardArtifactVersionDelete } from '../artifacts/version-service';
import type { Database, Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { checkCustomMetadata } from '../http/custom-metadata';
import { conflict, invalidField, notFound } from '../http/errors';
import { findOwnedRow, listOwnedRows } from '../read-path/owned-rows';
import type { ListQuery } from '../http/pagination';
import { resourceIdFromPrn, resourcePrn } from '../core/prn';
import type { SearchFields } from '../search/search';
import { enqueuePurge } from './purge-job';
import { binaries, binaryParts, binarySignatures } from './schema';
import { assembledKey, partKey } from './blob-keys';
import { binaryToWire, type BinaryRow, type SignatureRow } from './wire';
import { forgetBundleSnapshots } from './manifest';

export const BINARY_SIZE_MAX = 53_687_091_200_000;

function binarySearch(organizationId: string): SearchFields {
  return {
    target: { column: binaries.target, type: 'string', operators: [':', '-', '~'] },
    hash: { column: binaries.hash, type: 'string', operators: [':'] },
    state: { column: binaries.state, type: 'string', operators: [':'] },
    description: { column: binaries.description, type: 'string', operators: [':', '-', '~'] },
    size: { column: binaries.size, type: 'number', operators: [':', '<', '<=', '>', '>='] },
    artifact_version_prn: {
      column: binaries.artifactVersionId,
      type: 'prn',
      operators: [':'],
      resolve: (prn) => resourceIdFromPrn(prn, 'artifact_version', organizationId),
    },
    inserted_at: { column: binaries.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
    updated_at: { column: binaries.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  };
}

/** The signatures of each binary, in the order they were made. */
export async function signaturesOf(db: Executor, binaryIds: string[]): Promise<Map<string, SignatureRow[]>> {
  const byBinary = new Map<string, SignatureRow[]>(binaryIds.map((id) => [id, []]));
  if (binaryIds.length === 0) return byBinary;
  const rows = await db.select().from(binarySignatures).where(inArray(binarySignatures.binaryId, binaryIds)).orderBy(binarySignatures.insertedAt, binarySignatures.id);
  for (const row of rows) byBinary.get(row.binaryId)?.push(row);
  return byBinary;
}

export async function binariesToWire(db: Executor, rows: BinaryRow[]) {
  const signatures = await signaturesOf(db, rows.map((r) => r.id));
  return rows.map((row) => binaryToWire(row, signatures.get(row.id) ?? []));
}

export async function binaryToWireWithSignatures(db: Executor, row: BinaryRow) {
  return (await binariesToWire(db, [row]))[0];
}

export interface NewBinary {
  id?: string;
  artifact_version_prn: string;
  hash: string;
  size: number;
  target: string;
  description?: string | null;
  custom_metadata?: Record<string, unknown> | null;
}

function targetTaken(error: unknown) {
  return isUniqueViolation(error, 'binaries_version_target_live') ? invalidField('target', 'taken') : error;
}

export async function createBinary(db: Executor, actor: Actor, input: NewBinary): Promise<BinaryRow> {
  checkCustomMetadata(input.custom_metadata);
  const version = await getArtifactVersion(db, actor, input.artifact_version_prn, 'artifact_version_prn');
  const id = idFor(input.id);
  const values = {
    id,
    organizationId: actor.organizationId,
    artifactVersionId: version.id,
    hash: input.hash,
    size: input.size,
    target: input.target,
    description: input.description ?? null,
    customMetadata: input.custom_metadata ?? null,
  };
  try {
    return await insertWithCallerId('binary', 'binaries', id, async () => (await db.insert(binaries).values(values).returning())[0]);
  } catch (error) {
    throw targetTaken(error);
  }
}

/** The binary a prn names in the caller's organization; 404, or 422 on `field` when given. */
export async function getBinary(db: Executor, actor: Actor, prn: string, field?: string): Promise<BinaryRow> {
  const row = await findOwnedRow(db, binaries, 'binary', actor.organizationId, prn);
  if (!row) throw field ? invalidField(field, 'not_found') : notFound('binary', prn);
  return row;
}

/** Like getBinary, and holds the row until the transaction ends, so state moves never interleave. */
export async function lockBinary(tx: Executor, actor: Actor, prn: string, field?: string): Promise<BinaryRow> {
  const found = await getBinary(tx, actor, prn, field);
  const [row] = await tx.select().from(binaries).where(eq(binaries.id, found.id)).for('update');
  if (!row) throw field ? invalidField(field, 'not_found') : notFound('binary', prn);
  return row;
}

export interface BinaryListQuery extends ListQuery {
  artifact_version_prn?: string;
}

export async function listBinaries(db: Executor, actor: Actor, query: BinaryListQuery) {
  const versionId = query.artifact_version_prn === undefined ? undefined : resourceIdFromPrn(query.artifact_version_prn, 'artifact_version', actor.organizationId);
  return listOwnedRows(
    db,
    binaries,
    actor.organizationId,
    query,
    binarySearch(actor.organizationId),
    versionId === undefined ? undefined : versionId === null ? sql`false` : eq(binaries.artifactVersionId, versionId),
  );
}

/** Every stored key of a binary: what a delete, a reset or a destroy must purge. */
export async function storedKeysOf(tx: Executor, binary: BinaryRow): Promise<string[]> {
  const parts = await tx.select({ id: binaryParts.id }).from(binaryParts).where(eq(binaryParts.binaryId, binary.id));
  return [...parts.map((p) => partKey(binary.id, p.id)), assembledKey(binary.id, binary.revision)];
}

export async function deleteBinary(db: Database, actor: Actor, prn: string): Promise<void> {
  await db.transaction(async (tx) => {
    const binary = await lockBinary(tx, actor, prn);
    await enqueuePurge(tx, await storedKeysOf(tx, binary));
    await tx.delete(binaries).where(and(eq(binaries.id, binary.id), eq(binaries.organizationId, actor.organizationId)));
  });
  forgetBundleSnapshots();
}

// An artifact version keeps its binaries: deleting it is refused while any remain.
guardArtifactVersionDelete(async (tx, version) => {
  const [held] = await tx.select({ id: binaries.id }).from(binaries).where(eq(binaries.artifactVersionId, version.id)).limit(1);
  if (held) throw conflict('artifact_version_has_binaries', { prn: resourcePrn(version.organizationId, 'artifact_version', version.id) });
});
