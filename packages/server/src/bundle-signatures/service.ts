/**
 * Bundle signatures: an Ed25519 signature, by one of the organization's signing keys, over the
 * canonical message of the binaries a device of one target (or of any target) downloads for a
 * bundle (@canopy/sdk bundle-signing.ts; guides/trust/bundle-signatures.md). It is checked
 * when attached, so a stored signature was valid for the bundle's binaries at that time; a
 * binary replaced later makes it stale, which a device sees as a signature that fails.
 */
import { bundleSignatureMessage } from '@canopy/sdk/bundle-signing';
import { createPublicKey, verify } from 'node:crypto';
import { and, asc, eq, or } from 'drizzle-orm';
import { bundleBinariesToSign } from '../binaries/manifest';
import { getBundle } from '../bundles/service';
import { resourceIdFromPrn, resourcePrn } from '../core/prn';
import type { Database, Executor } from '../db/connection';
import { isUniqueViolation } from '../db/errors';
import type { Actor } from '../http/actor';
import { idFor } from '../http/caller-id';
import { conflict, invalidField, notFound } from '../http/errors';
import type { ListQuery } from '../http/pagination';
import { findOwnedRow, listOwnedRows } from '../read-path/owned-rows';
import type { SearchFields } from '../search/search';
import { signingKeys } from '../signing-keys/schema';
import { getSigningKey, publicKeyPem } from '../signing-keys/service';
import { bundleSignatures } from './schema';

export type BundleSignatureRow = typeof bundleSignatures.$inferSelect;

function signatureSearch(organizationId: string): SearchFields {
  return {
    bundle_prn: { column: bundleSignatures.bundleId, type: 'prn', operators: [':'], resolve: (prn) => resourceIdFromPrn(prn, 'bundle', organizationId) },
    signing_key_prn: { column: bundleSignatures.signingKeyId, type: 'prn', operators: [':'], resolve: (prn) => resourceIdFromPrn(prn, 'signing_key', organizationId) },
    signature: { column: bundleSignatures.signature, type: 'string', operators: [':'] },
    inserted_at: { column: bundleSignatures.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
    updated_at: { column: bundleSignatures.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  };
}

export interface NewBundleSignature {
  bundle_prn: string;
  signing_key_prn: string;
  signature: string;
  target?: string | null;
}

function verifies(keyValue: string, message: Buffer, signatureHex: string): boolean {
  try {
    return verify(null, message, createPublicKey(publicKeyPem({ value: keyValue })), Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}

export async function createBundleSignature(db: Database, actor: Actor, input: NewBundleSignature): Promise<BundleSignatureRow> {
  return db.transaction(async (tx) => {
    const bundle = await getBundle(tx, actor, input.bundle_prn, 'bundle_prn');
    const key = await getSigningKey(tx, actor, input.signing_key_prn, 'signing_key_prn');
    const target = input.target ?? null;
    const { signable, binaries } = await bundleBinariesToSign(tx, actor.organizationId, bundle.id, target);
    if (!signable) throw conflict('bundle_not_signable', { target, reason: 'every artifact version needs a binary for the target whose bytes are verified (signable or signed)' });
    let message: Buffer;
    try {
      message = bundleSignatureMessage(resourcePrn(actor.organizationId, 'bundle', bundle.id), binaries);
    } catch {
      throw conflict('bundle_not_signable', { target, reason: 'a binary target holds a space or a character outside printable ASCII' });
    }
    const signature = input.signature.toLowerCase();
    if (!verifies(key.value, message, signature)) throw invalidField('signature', 'invalid_signature');
    try {
      const [row] = await tx
        .insert(bundleSignatures)
        .values({ id: idFor(undefined), organizationId: actor.organizationId, bundleId: bundle.id, signingKeyId: key.id, target: target ?? '', signature })
        .returning();
      return row;
    } catch (error) {
      if (isUniqueViolation(error, 'bundle_signatures_bundle_key_target')) throw invalidField('signing_key_prn', 'taken');
      throw error;
    }
  });
}

export async function getBundleSignature(db: Executor, actor: Actor, prn: string): Promise<BundleSignatureRow> {
  const row = await findOwnedRow(db, bundleSignatures, 'bundle_signature', actor.organizationId, prn);
  if (!row) throw notFound('bundle_signature', prn);
  return row;
}

export function listBundleSignatures(db: Executor, actor: Actor, query: ListQuery) {
  return listOwnedRows(db, bundleSignatures, actor.organizationId, query, signatureSearch(actor.organizationId));
}

/** The signatures of one bundle of the caller's organization (404 for any other bundle). */
export async function listSignaturesOfBundle(db: Executor, actor: Actor, bundlePrn: string, query: ListQuery) {
  const bundle = await getBundle(db, actor, bundlePrn);
  return listOwnedRows(db, bundleSignatures, actor.organizationId, query, signatureSearch(actor.organizationId), eq(bundleSignatures.bundleId, bundle.id));
}

export async function deleteBundleSignature(db: Executor, actor: Actor, prn: string): Promise<void> {
  const row = await getBundleSignature(db, actor, prn);
  await db.delete(bundleSignatures).where(eq(bundleSignatures.id, row.id));
}

/**
 * The signatures a device of `target` is handed with the bundle (GET /update, `bundle`
 * expansion): those made for its target and those made for every target, oldest first, each
 * with its key's PEM like a manifest's binary signatures. The device decides which it trusts.
 */
export async function bundleSignaturesForDevice(db: Executor, bundleId: string, target: string | null) {
  const rows = await db
    .select({ signature: bundleSignatures.signature, target: bundleSignatures.target, organizationId: bundleSignatures.organizationId, keyId: signingKeys.id, keyValue: signingKeys.value })
    .from(bundleSignatures)
    .innerJoin(signingKeys, eq(signingKeys.id, bundleSignatures.signingKeyId))
    .where(and(eq(bundleSignatures.bundleId, bundleId), target ? or(eq(bundleSignatures.target, ''), eq(bundleSignatures.target, target)) : eq(bundleSignatures.target, '')))
    .orderBy(asc(bundleSignatures.insertedAt), asc(bundleSignatures.id));
  return rows.map((r) => ({ signature: r.signature, signing_key_prn: resourcePrn(r.organizationId, 'signing_key', r.keyId), public_value: publicKeyPem({ value: r.keyValue }), target: r.target || null }));
}
