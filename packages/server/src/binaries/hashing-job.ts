/**
 * The durable hashing job (hashing -> signable, or back to hashable with the reason). It first
 * joins the valid parts in index order (BlobStore.concat) into the single object downloads are
 * served from, then hashes THAT object: the hash vouches for the very bytes served. (Hashing the
 * parts and copying them after would let a part rewritten in between, say by an S3 presigned
 * URL replayed, become the download under a hash it does not have.) A mismatch deletes the
 * joined object again. It holds its lease by heartbeats; if its
 * process dies, the lease runs out and another worker (or this one after a restart) starts over.
 * After MAX_ATTEMPTS failed attempts the binary goes back to hashable, so none stays in hashing.
 */
import { createHash } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { BlobNotFound } from '../storage/blob-store';
import type { JobContext, JobHandler } from '../workers/runner';
import { assembledKey, partKey } from './blob-keys';
import { binaries, binaryParts } from './schema';
import type { BinaryRow } from './wire';

export const HASH_JOB = 'binary.hash';
export const hashJobKey = (binaryId: string) => `${HASH_JOB}:${binaryId}`;
export const MAX_HASH_ATTEMPTS = 5;
const HEARTBEAT_MS = 5_000;

/** Moves a binary out of hashing, unless it was reset, destroyed or re-hashed meanwhile. */
async function finish(db: Executor, binary: BinaryRow, outcome: { state: 'signable' } | { state: 'hashable'; error: string }): Promise<void> {
  await db
    .update(binaries)
    .set({ state: outcome.state, hashError: outcome.state === 'hashable' ? outcome.error : null, updatedAt: sql`now()` })
    .where(and(eq(binaries.id, binary.id), eq(binaries.state, 'hashing'), eq(binaries.revision, binary.revision)));
}

/** The object's bytes, with the lease kept alive while they flow. */
async function* heartbeating(context: JobContext, key: string): AsyncGenerator<Buffer> {
  let lastBeat = Date.now();
  for await (const chunk of await context.platform.blobs.get(key)) {
    if (context.signal.aborted) throw new Error('shutting down');
    if (Date.now() - lastBeat > HEARTBEAT_MS) {
      lastBeat = Date.now();
      await context.heartbeat();
    }
    yield chunk as Buffer;
  }
}

/** Null when the object at `key` is `binary.size` bytes hashing to `binary.hash`, else the reason. */
async function mismatchOf(context: JobContext, key: string, binary: BinaryRow): Promise<string | null> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of heartbeating(context, key)) {
    bytes += chunk.length;
    // More bytes than declared can never match: stop reading rather than hash them all.
    if (bytes > binary.size) return `size_mismatch: more than the declared ${binary.size} bytes`;
    hash.update(chunk);
  }
  const digest = hash.digest('hex');
  if (bytes !== binary.size) return `size_mismatch: stored ${bytes} bytes, declared ${binary.size}`;
  if (digest !== binary.hash) return `hash_mismatch: computed ${digest}, declared ${binary.hash}`;
  return null;
}

async function hashBinary(context: JobContext, binary: BinaryRow): Promise<void> {
  const { db, blobs } = context.platform;
  const parts = await db
    .select({ id: binaryParts.id, size: binaryParts.size })
    .from(binaryParts)
    .where(and(eq(binaryParts.binaryId, binary.id), eq(binaryParts.state, 'valid')))
    .orderBy(asc(binaryParts.index));
  const declared = parts.reduce((sum, p) => sum + p.size, 0);
  if (declared !== binary.size) return finish(db, binary, { state: 'hashable', error: `size_mismatch: parts declare ${declared} bytes, binary ${binary.size}` });
  const assembled = assembledKey(binary.id, binary.revision);
  let mismatch: string | null;
  try {
    await blobs.concat(assembled, parts.map((p) => partKey(binary.id, p.id)), binary.size);
    mismatch = await mismatchOf(context, assembled, binary);
  } catch (error) {
    if (error instanceof BlobNotFound) mismatch = 'part_missing: a part has no stored bytes; upload it again';
    else throw error;
  }
  if (mismatch !== null) {
    await blobs.delete(assembled);
    return finish(db, binary, { state: 'hashable', error: mismatch });
  }
  await finish(db, binary, { state: 'signable' });
}

export const hashBinaryJob: JobHandler = {
  kind: HASH_JOB,
  leaseSeconds: 60,
  retryDelay: (attempt) => Math.min(300, 5 * 2 ** attempt),
  async run(context) {
    const { binary_id: binaryId, revision } = context.job.payload as { binary_id: string; revision: number };
    const [binary] = await context.platform.db.select().from(binaries).where(eq(binaries.id, binaryId));
    // Reset, destroyed or deleted since it was enqueued: nothing left to do.
    if (!binary || binary.state !== 'hashing' || binary.revision !== revision) return;
    if (context.job.attempts > MAX_HASH_ATTEMPTS) {
      await finish(context.platform.db, binary, { state: 'hashable', error: `hashing_failed: gave up after ${MAX_HASH_ATTEMPTS} attempts (${context.job.lastError ?? 'unknown error'})` });
      return;
    }
    await hashBinary(context, binary);
  },
};
