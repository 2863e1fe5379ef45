/**
 * Signing keys: the Ed25519 public keys binary signatures are checked against. The key itself
 * (`value`) is immutable: a signature made with it must keep meaning what it meant, so a PATCH
 * may rename a key but a different key is a new signing key.
 */
import { organizationPrn, resourcePrn } from '../core/prn';
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { isUniqueViolation } from '../db/errors';
import type { Actor } from '../http/actor';
import { invalidField, notFound } from '../http/errors';
import { listOwnedRows, requireOwnedRow } from '../read-path/owned-rows';
import type { ListQuery } from '../http/pagination';
import type { SearchFields } from '../search/search';
import { timestampsOf } from '../http/wire-fields';
import { keyIdOf, parseEd25519PublicKey, rawBase64ToPem } from './ed25519';
import { signingKeys } from './schema';

export type SigningKeyRow = typeof signingKeys.$inferSelect;

export function signingKeyToWire(row: SigningKeyRow) {
  return {
    prn: resourcePrn(row.organizationId, 'signing_key', row.id),
    organization_prn: organizationPrn(row.organizationId),
    name: row.name,
    value: row.value,
    keyid: row.keyid,
    ...timestampsOf(row),
  };
}

/** The key as PEM SPKI, what a manifest's signatures carry as `public_value`. */
export function publicKeyPem(row: Pick<SigningKeyRow, 'value'>): string {
  return rawBase64ToPem(row.value);
}

export const SIGNING_KEY_SEARCH: SearchFields = {
  name: { column: signingKeys.name, type: 'string', operators: [':', '-', '~'] },
  keyid: { column: signingKeys.keyid, type: 'string', operators: [':'] },
  inserted_at: { column: signingKeys.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  updated_at: { column: signingKeys.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
};

/** `value` in either accepted form -> the stored base64 and its keyid; 422 when it is no Ed25519 key. */
function normaliseValue(value: string) {
  const raw = parseEd25519PublicKey(value);
  if (!raw) throw invalidField('value', 'invalid_key', { expected: 'ed25519_public_key' });
  return { value: raw.toString('base64'), keyid: keyIdOf(raw) };
}

export async function createSigningKey(db: Executor, actor: Actor, input: { name: string; value: string }) {
  const key = normaliseValue(input.value);
  try {
    const [row] = await db
      .insert(signingKeys)
      .values({ id: randomUUID(), organizationId: actor.organizationId, name: input.name, ...key })
      .returning();
    return row;
  } catch (error) {
    if (isUniqueViolation(error, 'signing_keys_org_keyid_unique')) throw invalidField('value', 'taken');
    throw error;
  }
}

/** The signing key a prn names in the caller's organization; 404 (or 422 on `field`) otherwise. */
export function getSigningKey(db: Executor, actor: Actor, prn: string, field?: string): Promise<SigningKeyRow> {
  return requireOwnedRow(db, signingKeys, 'signing_key', actor.organizationId, prn, field);
}

export function listSigningKeys(db: Executor, actor: Actor, query: ListQuery) {
  return listOwnedRows(db, signingKeys, actor.organizationId, query, SIGNING_KEY_SEARCH);
}

/**
 * Renames a key. Clients send back the whole object, so `value` may come along: the same key
 * (in either form) is accepted, a different one is 422 `immutable`.
 */
export async function updateSigningKey(db: Executor, actor: Actor, prn: string, changes: { name?: string; value?: string }) {
  const current = await getSigningKey(db, actor, prn);
  if (changes.value !== undefined && normaliseValue(changes.value).keyid !== current.keyid) throw invalidField('value', 'immutable');
  if (changes.name === undefined) return current;
  const [row] = await db.update(signingKeys).set({ name: changes.name, updatedAt: sql`now()` }).where(eq(signingKeys.id, current.id)).returning();
  if (!row) throw notFound('signing_key', prn); // deleted since we read it
  return row;
}

export async function deleteSigningKey(db: Executor, actor: Actor, prn: string): Promise<void> {
  const current = await getSigningKey(db, actor, prn);
  await db.delete(signingKeys).where(eq(signingKeys.id, current.id));
}
