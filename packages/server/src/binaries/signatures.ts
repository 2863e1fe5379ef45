/**
 * Binary signatures: an Ed25519 signature, by one of the organization's signing keys, over the
 * ASCII bytes of the binary's lowercase hex SHA-256 (64 bytes). Only a binary whose bytes the
 * server has verified (signable or signed) can be signed; the first valid signature makes it
 * signed. Removing the last signature of a signed binary makes it signable again, so `signed`
 * always means "carries at least one valid signature".
 */
import { createPublicKey, verify } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { isUniqueViolation } from '../db/errors';
import type { Database, Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { conflict, invalidField, notFound } from '../http/errors';
import { findOwnedRow, listOwnedRows } from '../read-path/owned-rows';
import type { ListQuery } from '../http/pagination';
import { idFor } from '../http/caller-id';
import { resourceIdFromPrn } from '../core/prn';
import type { SearchFields } from '../search/search';
import { getSigningKey, publicKeyPem } from '../signing-keys/service';
import { binaries, binarySignatures } from './schema';
import { lockBinary } from './service';
import type { SignatureRow } from './wire';
import { forgetBundleSnapshots } from './manifest';

export const SIGNABLE_STATES = new Set(['signable', 'signed']);

function signatureSearch(organizationId: string): SearchFields {
  return {
    binary_prn: { column: binarySignatures.binaryId, type: 'prn', operators: [':'], resolve: (prn) => resourceIdFromPrn(prn, 'binary', organizationId) },
    signing_key_prn: { column: binarySignatures.signingKeyId, type: 'prn', operators: [':'], resolve: (prn) => resourceIdFromPrn(prn, 'signing_key', organizationId) },
    signature: { column: binarySignatures.signature, type: 'string', operators: [':'] },
    inserted_at: { column: binarySignatures.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
    updated_at: { column: binarySignatures.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  };
}

/** True when `signatureHex` is keyValue's Ed25519 signature of the hash's ASCII text. */
export function verifiesHash(keyValue: string, hashHex: string, signatureHex: string): boolean {
  try {
    return verify(null, Buffer.from(hashHex, 'ascii'), createPublicKey(publicKeyPem({ value: keyValue })), Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}

export interface NewSignature {
  binary_prn: string;
  signing_key_prn: string;
  signature: string;
}

export async function createSignature(db: Database, actor: Actor, input: NewSignature): Promise<SignatureRow> {
  return db.transaction(async (tx) => {
    const binary = await lockBinary(tx, actor, input.binary_prn, 'binary_prn');
    const key = await getSigningKey(tx, actor, input.signing_key_prn, 'signing_key_prn');
    if (!SIGNABLE_STATES.has(binary.state)) throw conflict('binary_not_signable', { current_state: binary.state, required_state: 'signable' });
    const signature = input.signature.toLowerCase();
    if (!verifiesHash(key.value, binary.hash, signature)) throw invalidField('signature', 'invalid_signature');
    try {
      const [row] = await tx
        .insert(binarySignatures)
        .values({ id: idFor(undefined), organizationId: actor.organizationId, binaryId: binary.id, signingKeyId: key.id, signature })
        .returning();
      if (binary.state === 'signable') await tx.update(binaries).set({ state: 'signed', updatedAt: sql`now()` }).where(eq(binaries.id, binary.id));
      return row;
    } catch (error) {
      if (isUniqueViolation(error, 'binary_signatures_binary_key')) throw invalidField('signing_key_prn', 'taken');
      throw error;
    }
  });
}

export async function getSignature(db: Executor, actor: Actor, prn: string): Promise<SignatureRow> {
  const row = await findOwnedRow(db, binarySignatures, 'binary_signature', actor.organizationId, prn);
  if (!row) throw notFound('binary_signature', prn);
  return row;
}

export async function listSignatures(db: Executor, actor: Actor, query: ListQuery) {
  return listOwnedRows(db, binarySignatures, actor.organizationId, query, signatureSearch(actor.organizationId));
}

export async function deleteSignature(db: Database, actor: Actor, prn: string): Promise<void> {
  await db.transaction(async (tx) => {
    const signature = await getSignature(tx, actor, prn);
    const [binary] = await tx.select().from(binaries).where(eq(binaries.id, signature.binaryId)).for('update');
    await tx.delete(binarySignatures).where(eq(binarySignatures.id, signature.id));
    const [left] = await tx.select({ id: binarySignatures.id }).from(binarySignatures).where(eq(binarySignatures.binaryId, signature.binaryId)).limit(1);
    if (!left && binary?.state === 'signed') {
      await tx.update(binaries).set({ state: 'signable', updatedAt: sql`now()` }).where(and(eq(binaries.id, binary.id), eq(binaries.state, 'signed')));
    }
  });
  // Bundles using this binary may no longer be distributable: stop offering them at once here.
  forgetBundleSnapshots();
}
