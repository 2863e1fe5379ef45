/**
 * PATCH /binaries/{prn}: edits and client-requested state moves, in one transaction with the
 * binary's row locked, so two requests (or a request and the hashing job) never interleave.
 */
import { eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { checkCustomMetadata } from '../http/custom-metadata';
import { invalidField } from '../http/errors';
import { resourcePrn } from '../core/prn';
import type { Platform } from '../platform';
import { enqueueJob } from '../workers/queue';
import { HASH_JOB, hashJobKey } from './hashing-job';
import { reconcileParts } from './parts';
import { checkPartsComplete } from './part-rules';
import { enqueuePurge } from './purge-job';
import { binaries, binaryParts, type BinaryState } from './schema';
import { lockBinary, storedKeysOf } from './service';
import { clientTransition, invalidTransition, type Transition } from './state-machine';
import type { BinaryRow } from './wire';
import { forgetBundleSnapshots } from './manifest';

export interface BinaryChanges {
  state?: BinaryState;
  hash?: string;
  size?: number;
  description?: string | null;
  custom_metadata?: Record<string, unknown> | null;
  /** Accepted only unchanged: clients send the whole object back. */
  target?: string;
  artifact_version_prn?: string;
}

function checkImmutable(binary: BinaryRow, changes: BinaryChanges): void {
  if (changes.target !== undefined && changes.target !== binary.target) throw invalidField('target', 'immutable');
  const versionPrn = resourcePrn(binary.organizationId, 'artifact_version', binary.artifactVersionId);
  if (changes.artifact_version_prn !== undefined && changes.artifact_version_prn !== versionPrn) throw invalidField('artifact_version_prn', 'immutable');
}

/** hash and size describe the upload, so they may change only while (or by becoming) uploadable. */
function checkRedeclaration(binary: BinaryRow, changes: BinaryChanges, resulting: BinaryState): void {
  for (const field of ['hash', 'size'] as const) {
    if (changes[field] !== undefined && changes[field] !== binary[field] && resulting !== 'uploadable') {
      throw invalidField(field, 'immutable_in_state', { state: binary.state });
    }
  }
}

async function apply(tx: Executor, platform: Platform, binary: BinaryRow, transition: Transition, to: BinaryState): Promise<Partial<BinaryRow>> {
  switch (transition) {
    case 'noop':
      return {};
    case 'finish_upload': {
      const parts = await reconcileParts(tx, platform, binary);
      const problem = checkPartsComplete(binary.size, parts);
      if (problem) throw invalidTransition(binary.state, to, problem);
      return { state: 'hashable', hashError: null };
    }
    case 'start_hashing':
      await enqueueJob(tx, { kind: HASH_JOB, key: hashJobKey(binary.id), payload: { binary_id: binary.id, revision: binary.revision } });
      return { state: 'hashing', hashError: null };
    case 'reset':
      await enqueuePurge(tx, await storedKeysOf(tx, binary));
      await tx.delete(binaryParts).where(eq(binaryParts.binaryId, binary.id));
      return { state: 'uploadable', revision: binary.revision + 1, hashError: null };
    case 'destroy':
      await enqueuePurge(tx, await storedKeysOf(tx, binary));
      await tx.delete(binaryParts).where(eq(binaryParts.binaryId, binary.id));
      return { state: 'destroyed' };
  }
}

export async function updateBinary(db: Database, platform: Platform, actor: Actor, prn: string, changes: BinaryChanges): Promise<BinaryRow> {
  checkCustomMetadata(changes.custom_metadata);
  const updated = await db.transaction(async (tx) => {
    const binary = await lockBinary(tx, actor, prn);
    checkImmutable(binary, changes);
    const to = changes.state ?? binary.state;
    const transition = clientTransition(binary.state, to);
    // A destroyed binary is final: not even its description changes.
    if (binary.state === 'destroyed') throw invalidTransition(binary.state, to, { reason: 'destroyed_is_final' });
    checkRedeclaration(binary, changes, transition === 'reset' ? 'uploadable' : binary.state);
    const moved = await apply(tx, platform, binary, transition, to);
    const [row] = await tx
      .update(binaries)
      .set({
        ...moved,
        hash: changes.hash,
        size: changes.size,
        description: changes.description,
        customMetadata: changes.custom_metadata,
        updatedAt: sql`now()`,
      })
      .where(eq(binaries.id, binary.id))
      .returning();
    return { row, transition };
  });
  if (updated.transition !== 'noop') platform.jobs.wake();
  // A binary leaving `signed` (reset, destroy) may make its bundles undistributable.
  forgetBundleSnapshots();
  return updated.row;
}
