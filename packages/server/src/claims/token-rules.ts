/**
 * Claim token secrets and the rule of when a token may still enrol a device. Pure: the secret is
 * 256 random bits shown once; only its SHA-256 is stored, and a presented secret is compared with
 * the stored hash in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const CLAIM_SECRET_PREFIX = 'cnpyc_';

export function generateClaimSecret(): string {
  return `${CLAIM_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashClaimSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashClaimSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

export type ClaimTokenState = 'active' | 'revoked' | 'expired' | 'used_up';

export interface TokenFacts {
  revokedAt: string | null;
  expiresAt: string;
  uses: number;
  maxUses: number;
}

/** Revocation first, then expiry, then the use count: the first reason a token cannot enrol. */
export function tokenState(token: TokenFacts, now: Date): ClaimTokenState {
  if (token.revokedAt) return 'revoked';
  if (new Date(token.expiresAt).getTime() <= now.getTime()) return 'expired';
  if (token.uses >= token.maxUses) return 'used_up';
  return 'active';
}
