/**
 * API keys: 256 random bits, shown once, stored as SHA-256. The prefix says the kind
 * (`cnpy_` current, `cnpyl_` legacy) so a leaked key is recognisable by secret scanners.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import type { Actor, Role } from '../http/actor';
import { hashToken } from '../http/auth';
import { organizationPrn, resourcePrn, userPrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import { recordEvent } from '../events/service';
import { cachedActor, lookupOnce, rememberActor } from './key-cache';
import { apiKeys, type ApiKeyKind } from './schema';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function generateApiKey(kind: ApiKeyKind): string {
  return `${kind === 'current' ? 'cnpy_' : 'cnpyl_'}${randomBytes(32).toString('base64url')}`;
}

export interface NewApiKey {
  organizationId: string;
  name: string;
  kind: ApiKeyKind;
  role: Role;
  userId?: string | null;
  /** Keys minted by POST /users/auth (sessions.ts): they expire and are not announced as api_key.created. */
  session?: { expiresAt: string; endsAt: string; userAgent: string | null };
  /** A caller-fixed value (CANOPY_BOOTSTRAP_API_KEY); otherwise one is generated. */
  token?: string;
  actorPrn: string | null;
}

export async function createApiKey(tx: Executor, input: NewApiKey): Promise<{ row: ApiKeyRow; token: string }> {
  const token = input.token ?? generateApiKey(input.kind);
  const [row] = await tx
    .insert(apiKeys)
    .values({
      id: randomUUID(),
      organizationId: input.organizationId,
      userId: input.userId ?? null,
      name: input.name,
      kind: input.kind,
      role: input.role,
      tokenHash: hashToken(token),
      tokenPrefix: token.slice(0, 12),
      isSession: Boolean(input.session),
      expiresAt: input.session?.expiresAt ?? null,
      sessionEndsAt: input.session?.endsAt ?? null,
      userAgent: input.session?.userAgent ?? null,
      lastUsedAt: input.session ? sql`now()` : null,
    })
    .returning();
  if (!input.session) {
    await recordEvent(tx, {
      organizationId: input.organizationId,
      type: 'api_key',
      subtype: 'created',
      actorPrn: input.actorPrn,
      resourcePrn: resourcePrn(input.organizationId, 'api_key', row.id),
      data: { api_key: apiKeyToWire(row) },
    });
  }
  return { row, token };
}

export function apiKeyToWire(row: ApiKeyRow) {
  return {
    prn: resourcePrn(row.organizationId, 'api_key', row.id),
    organization_prn: organizationPrn(row.organizationId),
    name: row.name,
    kind: row.kind,
    role: row.role,
    token_prefix: row.tokenPrefix,
    user_prn: row.userId ? userPrn(row.userId) : null,
    expires_at: toRfc3339(row.expiresAt),
    revoked_at: toRfc3339(row.revokedAt),
    inserted_at: toRfc3339(row.insertedAt),
  };
}

/**
 * The actor for a presented key, or null when it is unknown, revoked or expired. A key this
 * process looked up in the last KEY_CACHE_TTL_MS is answered at once, without a promise, so the
 * auth hook can go on in the same tick.
 */
export function authenticateApiKey(db: Executor, token: string): Actor | null | Promise<Actor | null> {
  if (token.length > 512) return null;
  const hash = hashToken(token);
  return cachedActor(db, hash) ?? lookupOnce(db, hash, () => lookUpKey(db, hash));
}

async function lookUpKey(db: Executor, hash: string): Promise<Actor | null> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.tokenHash, hash), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`now()`))))
    .limit(1);
  // The index lookup already matched; the constant-time compare keeps the check honest if the
  // lookup ever becomes a prefix or range scan.
  if (!row || !timingSafeEqual(Buffer.from(row.tokenHash), Buffer.from(hash))) return null;
  const actor: Actor = {
    organizationId: row.organizationId,
    role: row.role,
    keyKind: row.kind,
    keyId: row.id,
    userId: row.userId,
    isSession: row.isSession,
    prn: row.userId ? userPrn(row.userId) : resourcePrn(row.organizationId, 'api_key', row.id),
  };
  rememberActor(db, hash, actor, row.expiresAt ? Date.parse(toRfc3339(row.expiresAt)) : null);
  return actor;
}
