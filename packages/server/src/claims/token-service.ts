/**
 * Claim tokens, the admin side: issue (the secret answered once), read, list, revoke. A revoked
 * token keeps its row (its uses and devices stay explainable); `state` is derived on every read
 * (token-rules.ts) so expiry needs no job.
 */
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { getCohort } from '../cohorts/service';
import { organizationPrn, resourceIdFromPrn, resourcePrn } from '../core/prn';
import type { Executor } from '../db/connection';
import { recordEvent } from '../events/service';
import type { Actor } from '../http/actor';
import { invalidField } from '../http/errors';
import type { ListQuery } from '../http/pagination';
import { timestampsOf } from '../http/wire-fields';
import { toRfc3339 } from '../core/time';
import { getProduct } from '../products/service';
import { listOwnedRows, requireOwnedRow } from '../read-path/owned-rows';
import type { SearchFields } from '../search/search';
import { claimTokens } from './schema';
import { generateClaimSecret, hashClaimSecret, tokenState } from './token-rules';

export type ClaimTokenRow = typeof claimTokens.$inferSelect;

export function claimTokenToWire(row: ClaimTokenRow, now = new Date()) {
  return {
    prn: resourcePrn(row.organizationId, 'claim_token', row.id),
    organization_prn: organizationPrn(row.organizationId),
    name: row.name,
    max_uses: row.maxUses,
    uses: row.uses,
    expires_at: toRfc3339(row.expiresAt),
    revoked_at: toRfc3339(row.revokedAt),
    state: tokenState(row, now),
    product_prn: resourcePrn(row.organizationId, 'product', row.productId),
    cohort_prn: row.cohortId ? resourcePrn(row.organizationId, 'cohort', row.cohortId) : null,
    tags: row.tags ?? null,
    ...timestampsOf(row),
  };
}

function tokenSearch(organizationId: string): SearchFields {
  return {
    name: { column: claimTokens.name, type: 'string', operators: [':', '-', '~'] },
    product_prn: { column: claimTokens.productId, type: 'prn', operators: [':'], resolve: (prn) => resourceIdFromPrn(prn, 'product', organizationId) },
    cohort_prn: { column: claimTokens.cohortId, type: 'prn', operators: [':'], resolve: (prn) => resourceIdFromPrn(prn, 'cohort', organizationId) },
    expires_at: { column: claimTokens.expiresAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
    inserted_at: { column: claimTokens.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
    updated_at: { column: claimTokens.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  };
}

export interface NewClaimToken {
  name?: string | null;
  max_uses: number;
  expires_at: string;
  product_prn: string;
  cohort_prn?: string | null;
  tags?: string[] | null;
}

export async function createClaimToken(db: Executor, actor: Actor, input: NewClaimToken, now = new Date()): Promise<{ row: ClaimTokenRow; secret: string }> {
  const expiresAt = new Date(input.expires_at);
  if (!(expiresAt.getTime() > now.getTime())) throw invalidField('expires_at', 'in_past');
  const product = await getProduct(db, actor, input.product_prn, 'product_prn');
  const cohort = input.cohort_prn ? await getCohort(db, actor, input.cohort_prn, 'cohort_prn') : null;
  if (cohort && cohort.productId !== product.id) throw invalidField('cohort_prn', 'product_mismatch');
  const secret = generateClaimSecret();
  const [row] = await db
    .insert(claimTokens)
    .values({
      id: randomUUID(),
      organizationId: actor.organizationId,
      name: input.name ?? null,
      secretHash: hashClaimSecret(secret),
      maxUses: input.max_uses,
      expiresAt: expiresAt.toISOString(),
      productId: product.id,
      cohortId: cohort?.id ?? null,
      tags: input.tags ?? null,
    })
    .returning();
  await recordEvent(db, {
    organizationId: actor.organizationId,
    type: 'claim_token',
    subtype: 'created',
    actorPrn: actor.prn,
    resourcePrn: resourcePrn(actor.organizationId, 'claim_token', row.id),
    data: { claim_token: claimTokenToWire(row, now) },
  });
  return { row, secret };
}

export function getClaimToken(db: Executor, actor: Actor, prn: string): Promise<ClaimTokenRow> {
  return requireOwnedRow(db, claimTokens, 'claim_token', actor.organizationId, prn);
}

export function listClaimTokens(db: Executor, actor: Actor, query: ListQuery) {
  return listOwnedRows(db, claimTokens, actor.organizationId, query, tokenSearch(actor.organizationId));
}

/** Revokes the token (idempotent); devices it enrolled keep their certificates. */
export async function revokeClaimToken(db: Executor, actor: Actor, prn: string): Promise<ClaimTokenRow> {
  const current = await getClaimToken(db, actor, prn);
  if (current.revokedAt) return current;
  const [row] = await db.update(claimTokens).set({ revokedAt: sql`now()`, updatedAt: sql`now()` }).where(eq(claimTokens.id, current.id)).returning();
  await recordEvent(db, {
    organizationId: actor.organizationId,
    type: 'claim_token',
    subtype: 'revoked',
    actorPrn: actor.prn,
    resourcePrn: resourcePrn(actor.organizationId, 'claim_token', row.id),
    data: { claim_token: claimTokenToWire(row) },
  });
  return row;
}
