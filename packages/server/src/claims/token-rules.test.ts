import { describe, expect, it } from 'vitest';
import { generateClaimSecret, hashClaimSecret, secretMatches, tokenState } from './token-rules';

describe('claim token rules', () => {
  it('makes distinct prefixed secrets that match only their own hash', () => {
    const [a, b] = [generateClaimSecret(), generateClaimSecret()];
    expect(a).toMatch(/^cnpyc_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(secretMatches(a, hashClaimSecret(a))).toBe(true);
    expect(secretMatches(b, hashClaimSecret(a))).toBe(false);
    expect(secretMatches(a, 'not hex')).toBe(false);
  });

  it('says revoked, then expired, then used up', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const token = { revokedAt: null, expiresAt: '2026-01-02T00:00:00Z', uses: 0, maxUses: 1 };
    expect(tokenState(token, now)).toBe('active');
    expect(tokenState({ ...token, uses: 1 }, now)).toBe('used_up');
    expect(tokenState({ ...token, uses: 1, expiresAt: '2026-01-01T00:00:00Z' }, now)).toBe('expired');
    expect(tokenState({ ...token, uses: 1, expiresAt: '2025-01-01T00:00:00Z', revokedAt: '2025-06-01T00:00:00Z' }, now)).toBe('revoked');
  });
});
