/**
 * The limit on failed claims is one limit across server processes: two processes on one
 * PostgreSQL database take wrong tokens from one address at the same time, and exactly
 * MAX_FAILURES of them are judged (401) before every further claim, through either process and
 * with a good token too, is 429. Per-process counting (the first version) let through twice as
 * many. PostgreSQL only: PGlite is one process's embedded database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FAILURES } from '../../src/claims/failure-limiter';
import { freshClaimKey } from '../support/claims';
import { deviceApi } from '../support/device-json-client';
import { processApi, startTwoProcesses, type TwoProcesses } from '../support/two-processes';

describe.skipIf(!process.env.DATABASE_URL)('failed claims across two server processes', () => {
  let processes: TwoProcesses;
  beforeAll(async () => {
    processes = await startTwoProcesses('canopy-claims-');
  }, 300_000);
  afterAll(async () => {
    await processes?.close();
  });

  it('judges exactly MAX_FAILURES wrong tokens, then refuses every claim through either process', { timeout: 120_000 }, async () => {
    const { servers, targets } = processes;
    const admin = processApi(servers[0].url);
    const product = (await admin('POST', '/products', { name: 'limited' })).body.product;
    const token = (await admin('POST', '/claim_tokens', { max_uses: 5, expires_at: new Date(Date.now() + 86_400_000).toISOString(), product_prn: product.prn })).body.claim_token;
    const key = await freshClaimKey();
    const wrong = (i: number) => deviceApi(targets[i % 2], key)('POST', '/device/claim', { token: `${token.secret}x`, identifier: `guess-${i}` });

    const answers = await Promise.all(Array.from({ length: 2 * MAX_FAILURES }, (_, i) => wrong(i)));
    const codes = answers.map((a) => a.body.errors[0].code);
    expect(codes.filter((c) => c === 'invalid_claim_token')).toHaveLength(MAX_FAILURES);
    expect(codes.filter((c) => c === 'too_many_claim_failures')).toHaveLength(MAX_FAILURES);

    for (const target of targets) {
      const good = await deviceApi(target, key)('POST', '/device/claim', { token: token.secret, identifier: 'honest' });
      expect([good.status, good.body.errors?.[0].code]).toEqual([429, 'too_many_claim_failures']);
    }
  });
});
