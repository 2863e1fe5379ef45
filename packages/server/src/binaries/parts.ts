/**
 * Parts: PUT /binaries/{prn}/parts/{index} declares a part and hands out where to upload its
 * bytes; GET lists them. The bytes themselves arrive at the store's presigned URL (S3) or at the
 * server's own signed upload URL (filesystem, see part-upload.ts).
 */
import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { conflict, invalidField } from '../http/errors';
import type { Platform } from '../platform';
import { partKey } from './blob-keys';
import { enqueuePurge } from './purge-job';
import { binaries, binaryParts, type BinaryState, type PartState } from './schema';
import { getBinary, lockBinary } from './service';
import type { BinaryRow, PartRow } from './wire';

export interface PartDeclaration {
  expected_binary_size: number;
  hash: string;
  size: number;
}

export function notUploadable(binary: BinaryRow) {
  return conflict('binary_not_uploadable', { current_state: binary.state, required_state: 'uploadable' });
}

/** The path of the server's own upload URL for a part (filesystem store). */
export const partUploadPath = (partId: string) => `/part_uploads/${partId}`;

export async function uploadUrlFor(platform: Platform, part: PartRow): Promise<string> {
  const ttl = platform.config.uploadUrlTtlSeconds;
  const presigned = await platform.blobs.presignUpload(partKey(part.binaryId, part.id), part.size, ttl);
  return presigned ?? platform.urls.sign('upload', partUploadPath(part.id), ttl);
}

export async function putPart(db: Database, platform: Platform, actor: Actor, prn: string, index: number, input: PartDeclaration): Promise<PartRow> {
  return db.transaction(async (tx) => {
    const binary = await lockBinary(tx, actor, prn);
    if (binary.state !== 'uploadable') throw notUploadable(binary);
    if (input.expected_binary_size !== binary.size) throw invalidField('expected_binary_size', 'mismatch', { binary_size: binary.size });
    if (input.size > binary.size) throw invalidField('size', 'exceeds_binary_size', { binary_size: binary.size });
    // The same index overwrites: the old part's bytes become garbage.
    const replaced = await tx
      .delete(binaryParts)
      .where(and(eq(binaryParts.binaryId, binary.id), eq(binaryParts.index, index)))
      .returning({ id: binaryParts.id });
    await enqueuePurge(tx, replaced.map((p) => partKey(binary.id, p.id)));
    const [part] = await tx
      .insert(binaryParts)
      .values({
        id: randomUUID(),
        organizationId: actor.organizationId,
        binaryId: binary.id,
        index,
        size: input.size,
        hash: input.hash,
        expectedBinarySize: input.expected_binary_size,
      })
      .returning();
    return part;
  });
}

async function partsOf(db: Executor, binaryId: string): Promise<PartRow[]> {
  return db.select().from(binaryParts).where(eq(binaryParts.binaryId, binaryId)).orderBy(asc(binaryParts.index));
}

/**
 * With S3 the bytes go straight to the bucket and the server learns nothing of it, so a part's
 * state is settled by looking: absent stays uploadable, a wrong length is invalid_size, the
 * signed length otherwise makes it valid (S3 refuses any other length). The part hashes are then
 * covered by the server's own hash of the whole binary. The filesystem store settles states as
 * the bytes arrive, so there is nothing to look at.
 */
export async function reconcileParts(db: Executor, platform: Platform, binary: BinaryRow): Promise<PartRow[]> {
  const parts = await partsOf(db, binary.id);
  if (platform.blobs.kind === 'filesystem') return parts;
  return Promise.all(
    parts.map(async (part) => {
      if (part.state !== 'uploadable') return part;
      const stored = await platform.blobs.size(partKey(binary.id, part.id));
      if (stored === null) return part;
      const state: PartState = stored === part.size ? 'valid' : 'invalid_size';
      const [row] = await db.update(binaryParts).set({ state, updatedAt: sql`now()` }).where(eq(binaryParts.id, part.id)).returning();
      return row ?? part;
    }),
  );
}

export async function listParts(db: Executor, platform: Platform, actor: Actor, prn: string): Promise<PartRow[]> {
  const binary = await getBinary(db, actor, prn);
  return reconcileParts(db, platform, binary);
}

/** The part a signed upload URL names and its binary's state; null when it was replaced or dropped. */
export async function partForUpload(db: Executor, partId: string): Promise<{ part: PartRow; binaryState: BinaryState } | null> {
  const [row] = await db
    .select({ part: binaryParts, binaryState: binaries.state })
    .from(binaryParts)
    .innerJoin(binaries, eq(binaries.id, binaryParts.binaryId))
    .where(eq(binaryParts.id, partId))
    .limit(1);
  return row ?? null;
}

export type PartCommit = { kind: 'recorded'; part: PartRow } | { kind: 'gone' } | { kind: 'not_uploadable'; state: BinaryState };

/**
 * Settles an upload's verdict with the binary's row locked, the lock every state move takes
 * (hashing starts, resets, destroys): only while the part exists and its binary is uploadable
 * does anything change. Then valid bytes are published under the part's key (`publish`, inside
 * the lock, so no state move can interleave) and the part marked valid. A wrong body marks a
 * part invalid only while it holds no valid bytes: a bad replay never undoes a good upload.
 */
export async function commitPartUpload(db: Database, partId: string, verdict: PartState, publish: () => Promise<void>): Promise<PartCommit> {
  return db.transaction(async (tx) => {
    const [binary] = await tx
      .select({ state: binaries.state })
      .from(binaries)
      .where(eq(binaries.id, sql`(select binary_id from binary_parts where id = ${partId})`))
      .for('update');
    const [part] = await tx.select().from(binaryParts).where(eq(binaryParts.id, partId));
    if (!binary || !part) return { kind: 'gone' };
    if (binary.state !== 'uploadable') return { kind: 'not_uploadable', state: binary.state };
    if (verdict !== 'valid' && part.state === 'valid') return { kind: 'recorded', part };
    if (verdict === 'valid') await publish();
    const [row] = await tx.update(binaryParts).set({ state: verdict, updatedAt: sql`now()` }).where(eq(binaryParts.id, partId)).returning();
    return { kind: 'recorded', part: row };
  });
}
