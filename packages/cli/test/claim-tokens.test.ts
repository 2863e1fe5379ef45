/**
 * Claim tokens and device reclaims through the CLI against a real server: a token issued with its
 * secret shown once, used by a device over the device API, revoked; a reclaim (the same
 * identifier claimed with another key) approved, and another rejected.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { freshClaimKey } from '../../server/test/support/claims';
import { deviceApi } from '../../server/test/support/device-json-client';
import { fleetFixtures, prns } from './support/fixtures';
import { canopy, canopyOk } from './support/run-canopy';
import { useCliEnv, useTestServer } from './support/server';

const server = useTestServer();
const env = useCliEnv(server);
const ok = canopyOk(env);
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString();

async function claim(secret: string, identifier: string) {
  return deviceApi(server, await freshClaimKey())('POST', '/device/claim', { token: secret, identifier });
}

describe('claim-tokens', () => {
  it('create (the secret once), get and list (never the secret), a device enrols, delete revokes', async () => {
    const { product, cohort } = await fleetFixtures(ok, 'claims');
    const created = (await ok(['claim-tokens', 'create', '--name', 'line-3', '--max-uses', '2', '--expires-at', tomorrow(), '--product-prn', product.prn, '--cohort-prn', cohort.prn, '--tags', 'line-3,eu'])).claim_token;
    expect(created).toMatchObject({ name: 'line-3', max_uses: 2, uses: 0, state: 'active', product_prn: product.prn, cohort_prn: cohort.prn, tags: ['line-3', 'eu'] });
    expect(created.secret).toMatch(/^cnpyc_/);

    const shown = (await ok(['claim-tokens', 'get', created.prn])).claim_token;
    expect(shown.secret).toBeUndefined();
    expect(prns((await ok(['claim-tokens', 'list', '--search', `product_prn:'${product.prn}'`])).claim_tokens)).toEqual([created.prn]);

    const enrolled = await claim(created.secret, `claimed-${randomUUID().slice(0, 8)}`);
    expect(enrolled.status).toBe(201);
    expect((await ok(['claim-tokens', 'get', created.prn])).claim_token.uses).toBe(1);

    expect((await canopy(['claim-tokens', 'delete', created.prn], env)).code).toBe(0);
    expect((await ok(['claim-tokens', 'get', created.prn])).claim_token.state).toBe('revoked');
    expect((await claim(created.secret, `claimed-${randomUUID().slice(0, 8)}`)).status).toBe(403);
  });

  it('names the field of a bad create', async () => {
    const run = await canopy(['claim-tokens', 'create', '--max-uses', '0', '--expires-at', tomorrow(), '--product-prn', 'prn:1:o:product:p'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('max_uses');
  });
});

describe('device-reclaims', () => {
  it('list and get a pending reclaim; approve one, reject another', async () => {
    const { product } = await fleetFixtures(ok, 'reclaims');
    const token = (await ok(['claim-tokens', 'create', '--max-uses', '10', '--expires-at', tomorrow(), '--product-prn', product.prn])).claim_token;
    const pending: string[] = [];
    for (const identifier of [`kept-${randomUUID().slice(0, 8)}`, `moved-${randomUUID().slice(0, 8)}`]) {
      expect((await claim(token.secret, identifier)).status).toBe(201);
      const again = await claim(token.secret, identifier);
      expect(again.status).toBe(202);
      pending.push(again.body.device_reclaim_prn);
    }

    const listed = (await ok(['device-reclaims', 'list', '--search', "state:'pending'"])).device_reclaims;
    expect(prns(listed)).toEqual(expect.arrayContaining(pending));
    expect((await ok(['device-reclaims', 'get', pending[0]])).device_reclaim).toMatchObject({ prn: pending[0], state: 'pending' });

    expect((await ok(['device-reclaims', 'approve', pending[0]])).device_reclaim.state).toBe('approved');
    expect((await ok(['device-reclaims', 'reject', pending[1]])).device_reclaim.state).toBe('rejected');
    const twice = await canopy(['device-reclaims', 'approve', pending[0]], env);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('invalid_state_transition');
  });
});
