/**
 * Enrolment with claim tokens over the real device API's TLS: a device with a fresh P-256 key
 * presents a self-signed certificate and a token, gets a certificate signed by its
 * organization's claims CA, and then calls the device API with it. Use counts, revocation,
 * expiry, a changed key (pending reclaim, approved by an admin), organization isolation, bad input
 * and the per-address limit on failures (last: it blocks this file's address).
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueCertificate } from '../../src/certificates/issue';
import { deviceApi } from '../support/device-json-client';
import { expectFieldError } from '../support/resource-checks';
import { useTestServer, type Api } from '../support/server';

const t = useTestServer();
let product: { prn: string };
let cohort: { prn: string };
const inADay = () => new Date(Date.now() + 86_400_000).toISOString();

beforeAll(async () => {
  product = (await t.api('POST', '/products', { name: 'claimed' })).body.product;
  cohort = (await t.api('POST', '/cohorts', { name: 'factory', product_prn: product.prn })).body.cohort;
});

async function token(api: Api, productPrn: string, fields: Record<string, unknown> = {}) {
  const res = await api('POST', '/claim_tokens', { max_uses: 5, expires_at: inADay(), product_prn: productPrn, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.claim_token as { prn: string; secret: string };
}

/** A fresh key and a self-signed certificate for it, as `canopy-daemon enrol` makes them. */
async function freshKey(name = 'new-device') {
  const self = await issueCertificate({ subject: name, clientAuth: true });
  return { certPem: self.certPem, keyPem: self.keyPem };
}

const claim = (credentials: { certPem: string; keyPem: string } | null, body: unknown) => deviceApi(t, credentials)('POST', '/device/claim', body);

describe('POST /device/claim', () => {
  it('enrols a new device into the token\'s product, cohort and tags, whose certificate then works', async () => {
    const { prn, secret } = await token(t.api, product.prn, { cohort_prn: cohort.prn, tags: ['line-3'] });
    const key = await freshKey();
    const res = await claim(key, { token: secret, identifier: 'claimed-0001' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 'enrolled', device_prn: expect.any(String), certificate: expect.stringContaining('BEGIN CERTIFICATE'), device_reclaim_prn: null });
    const device = (await t.api('GET', `/devices/${res.body.device_prn}`)).body.device;
    expect(device).toMatchObject({ identifier: 'claimed-0001', cohort_prn: cohort.prn, tags: ['line-3'] });
    expect((await t.api('GET', `/claim_tokens/${prn}`)).body.claim_token.uses).toBe(1);

    // Mutual TLS with the issued certificate and the device's own key.
    const me = await deviceApi(t, { certPem: res.body.certificate, keyPem: key.keyPem })('GET', '/device/me');
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.data.prn).toBe(res.body.device_prn);

    // The same key again: the same certificate, no use spent.
    const again = await claim(key, { token: secret, identifier: 'claimed-0001' });
    expect(again.status).toBe(200);
    expect(again.body.certificate).toBe(res.body.certificate);
    expect((await t.api('GET', `/claim_tokens/${prn}`)).body.claim_token.uses).toBe(1);
  });

  it('puts a known identifier with a new key into a pending reclaim an admin approves', async () => {
    const { secret } = await token(t.api, product.prn);
    expect((await claim(await freshKey(), { token: secret, identifier: 'reclaimed-0001' })).status).toBe(201);
    const newKey = await freshKey();
    const pending = await claim(newKey, { token: secret, identifier: 'reclaimed-0001' });
    expect(pending.status, JSON.stringify(pending.body)).toBe(202);
    expect(pending.body).toMatchObject({ status: 'reclaim_pending', certificate: null, device_reclaim_prn: expect.any(String) });
    expect((await claim(newKey, { token: secret, identifier: 'reclaimed-0001' })).status).toBe(202);
    const reclaims = (await t.api('GET', `/device_reclaims?search=${encodeURIComponent("state:'pending'")}`)).body.device_reclaims;
    expect(reclaims.map((r: { prn: string }) => r.prn)).toEqual([pending.body.device_reclaim_prn]);

    const other = await t.createOrganization();
    expect((await other.api('POST', `/device_reclaims/${pending.body.device_reclaim_prn}/approve`)).status).toBe(404);
    expect((await other.api('GET', '/device_reclaims')).body.device_reclaims).toEqual([]);

    const approved = await t.api('POST', `/device_reclaims/${pending.body.device_reclaim_prn}/approve`);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.device_reclaim.state).toBe('approved');
    expect((await t.api('POST', `/device_reclaims/${pending.body.device_reclaim_prn}/reject`)).status).toBe(409);
    const enrolled = await claim(newKey, { token: secret, identifier: 'reclaimed-0001' });
    expect(enrolled.status).toBe(200);
    expect((await deviceApi(t, { certPem: enrolled.body.certificate, keyPem: newKey.keyPem })('GET', '/device/me')).status).toBe(200);
    const events = (await t.api('GET', `/events?type=device&resource_prn=${encodeURIComponent(pending.body.device_prn)}&order=asc`)).body.events;
    expect(events.map((e: { data: { type: string } }) => e.data.type)).toEqual(expect.arrayContaining(['reclaim_requested', 'reclaim_approved']));

    // A rejected key stays refused.
    const thirdKey = await freshKey();
    const third = await claim(thirdKey, { token: secret, identifier: 'reclaimed-0001' });
    expect((await t.api('POST', `/device_reclaims/${third.body.device_reclaim_prn}/reject`)).status).toBe(200);
    expect((await claim(thirdKey, { token: secret, identifier: 'reclaimed-0001' })).body.errors[0].code).toBe('reclaim_rejected');
  });

  it('refuses a used-up, revoked or expired token, and enrols into the token\'s organization only', async () => {
    const once = await token(t.api, product.prn, { max_uses: 1 });
    expect((await claim(await freshKey(), { token: once.secret, identifier: 'once-1' })).status).toBe(201);
    const usedUp = await claim(await freshKey(), { token: once.secret, identifier: 'once-2' });
    expect([usedUp.status, usedUp.body.errors[0].code]).toEqual([403, 'claim_token_used_up']);
    // A known device spends no use: with a new key it may still ask for a reclaim.
    const reclaim = await claim(await freshKey(), { token: once.secret, identifier: 'once-1' });
    expect([reclaim.status, reclaim.body.status]).toEqual([202, 'reclaim_pending']);

    const revoked = await token(t.api, product.prn);
    await t.api('DELETE', `/claim_tokens/${revoked.prn}`);
    expect((await claim(await freshKey(), { token: revoked.secret, identifier: 'rev-1' })).body.errors[0].code).toBe('claim_token_revoked');

    const expiring = await token(t.api, product.prn);
    await t.server.platform.db.execute(sql`update claim_tokens set expires_at = now() - interval '1 second' where id = ${expiring.prn.split(':').pop()}`);
    expect((await claim(await freshKey(), { token: expiring.secret, identifier: 'exp-1' })).body.errors[0].code).toBe('claim_token_expired');
    expect((await t.api('GET', '/devices?limit=100')).body.devices.map((d: { identifier: string }) => d.identifier)).not.toEqual(expect.arrayContaining(['once-2', 'rev-1', 'exp-1']));

    // The same identifier in another organization is another device: tokens never cross.
    const other = await t.createOrganization();
    const theirProduct = (await other.api('POST', '/products', { name: 'theirs' })).body.product;
    const theirs = await token(other.api, theirProduct.prn);
    const res = await claim(await freshKey(), { token: theirs.secret, identifier: 'once-1' });
    expect(res.status).toBe(201);
    expect(res.body.device_prn.split(':')[2]).toBe(other.organizationId);
    expect((await t.api('GET', `/devices/${res.body.device_prn}`)).status).toBe(404);
  });

  it('answers bad input with 4xx naming the field, then limits an address that keeps failing', async () => {
    const { secret } = await token(t.api, product.prn);
    expectFieldError(await claim(await freshKey(), { token: secret, identifier: 'has space' }), 'identifier', 'invalid_format');
    expectFieldError(await claim(await freshKey(), { token: secret }), 'identifier', 'required');
    expect((await claim(null, { token: secret, identifier: 'no-cert' })).status).toBe(401);
    const key = await freshKey();
    // Refusals of the tests before count too: at most 10 in the minute before the address is limited.
    const codes: string[] = [];
    for (let i = 0; i < 10; i++) codes.push((await claim(key, { token: `${secret}x`, identifier: 'guess' })).body.errors[0].code);
    expect(codes[0]).toBe('invalid_claim_token');
    expect(codes.at(-1)).toBe('too_many_claim_failures');
    const limited = await claim(key, { token: secret, identifier: 'guess' });
    expect([limited.status, limited.body.errors[0].code]).toEqual([429, 'too_many_claim_failures']);
  });
});
