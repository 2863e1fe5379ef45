/**
 * Claim tokens through the real admin API: the secret is answered once and only its hash is
 * stored, state follows expiry and revocation, input errors name the field, only admins may
 * issue or read them, and another organization's tokens are not found.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFieldError } from '../support/resource-checks';
import { useTestServer } from '../support/server';

const t = useTestServer();
let product: { prn: string };
let cohort: { prn: string };
const inADay = () => new Date(Date.now() + 86_400_000).toISOString();

beforeAll(async () => {
  product = (await t.api('POST', '/products', { name: 'claims' })).body.product;
  cohort = (await t.api('POST', '/cohorts', { name: 'claimed', product_prn: product.prn })).body.cohort;
});

describe('claim tokens', () => {
  it('shows the secret once, stores only its hash, lists and revokes', async () => {
    const created = await t.api('POST', '/claim_tokens', { name: 'line 3', max_uses: 5, expires_at: inADay(), product_prn: product.prn, cohort_prn: cohort.prn, tags: ['factory'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { secret, ...token } = created.body.claim_token;
    expect(secret).toMatch(/^cnpyc_[A-Za-z0-9_-]{43}$/);
    expect(token).toMatchObject({ name: 'line 3', max_uses: 5, uses: 0, state: 'active', revoked_at: null, product_prn: product.prn, cohort_prn: cohort.prn, tags: ['factory'] });
    const got = (await t.api('GET', `/claim_tokens/${token.prn}`)).body.claim_token;
    expect(got).toEqual(token);
    expect(JSON.stringify((await t.api('GET', '/claim_tokens?limit=100')).body)).not.toContain(secret);
    const stored = await t.server.platform.db.execute(sql`select secret_hash from claim_tokens where id = ${token.prn.split(':').pop()}`);
    const rows = ((stored as { rows?: unknown[] }).rows ?? stored) as { secret_hash: string }[];
    expect(rows[0].secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));

    expect((await t.api('DELETE', `/claim_tokens/${token.prn}`)).status).toBe(204);
    const revoked = (await t.api('GET', `/claim_tokens/${token.prn}`)).body.claim_token;
    expect(revoked).toMatchObject({ state: 'revoked', revoked_at: expect.any(String) });
    expect((await t.api('DELETE', `/claim_tokens/${token.prn}`)).status).toBe(204);
    const events = (await t.api('GET', `/events?type=claim_token&resource_prn=${encodeURIComponent(token.prn)}&order=asc`)).body.events;
    expect(events.map((e: { data: { type: string } }) => e.data.type)).toEqual(['created', 'revoked']);
    expect(JSON.stringify(events)).not.toContain(secret);
    // Nor does the audit trail of the create, or any other event.
    expect(JSON.stringify((await t.api('GET', '/events?limit=100')).body)).not.toContain(secret);
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const base = { max_uses: 1, expires_at: inADay(), product_prn: product.prn };
    const before = (await t.api('GET', '/claim_tokens?limit=100')).body.claim_tokens.length;
    expectFieldError(await t.api('POST', '/claim_tokens', { ...base, max_uses: 0 }), 'max_uses', 'out_of_range');
    expectFieldError(await t.api('POST', '/claim_tokens', { ...base, expires_at: '2020-01-01T00:00:00Z' }), 'expires_at', 'in_past');
    expectFieldError(await t.api('POST', '/claim_tokens', { ...base, expires_at: 'tomorrow' }), 'expires_at', 'invalid_format');
    expectFieldError(await t.api('POST', '/claim_tokens', { ...base, product_prn: undefined }), 'product_prn', 'required');
    const otherProduct = (await t.api('POST', '/products', { name: 'other line' })).body.product;
    expectFieldError(await t.api('POST', '/claim_tokens', { ...base, product_prn: otherProduct.prn, cohort_prn: cohort.prn }), 'cohort_prn', 'product_mismatch');
    expect((await t.api('GET', '/claim_tokens?limit=100')).body.claim_tokens).toHaveLength(before);
  });

  it('is for admins only, and another organization\'s tokens are not found', async () => {
    const token = (await t.api('POST', '/claim_tokens', { max_uses: 1, expires_at: inADay(), product_prn: product.prn })).body.claim_token;
    const writeKey = await t.keyWithRole('write');
    expect((await t.api('GET', '/claim_tokens', undefined, { key: writeKey })).status).toBe(403);
    expect((await t.api('POST', '/claim_tokens', { max_uses: 1, expires_at: inADay(), product_prn: product.prn }, { key: writeKey })).status).toBe(403);
    const other = await t.createOrganization();
    expect((await other.api('GET', `/claim_tokens/${token.prn}`)).status).toBe(404);
    expect((await other.api('DELETE', `/claim_tokens/${token.prn}`)).status).toBe(404);
    expect((await other.api('GET', '/claim_tokens')).body.claim_tokens).toEqual([]);
    expectFieldError(await other.api('POST', '/claim_tokens', { max_uses: 1, expires_at: inADay(), product_prn: product.prn }), 'product_prn', 'not_found');
    expect((await t.api('GET', `/claim_tokens/${token.prn}`)).body.claim_token.state).toBe('active');
  });
});
