import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/service';
import { verifyWebhook } from '../../src/webhooks/signature';
import { releaseChangedData } from '../support/event-data';
import { startTestServer, type TestServer } from '../support/server';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver';

let t: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({
    webhookAllowPrivate: true,
    webhookCaFiles: [receiver.caFile],
    webhookTimeoutMs: 1_000,
    webhookLeaseSeconds: 5,
    webhookRetryBaseMs: 100,
    webhookRetryMaxDelayMs: 300,
    webhookRetryWindowSeconds: 2,
    webhookPollMs: 50,
  });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});
beforeEach(() => {
  receiver.respond = () => ({ status: 200 });
});

/** A receiver url of its own per test, so requests can be told apart. */
let counter = 0;
const hookUrl = () => `${receiver.url}?hook=${++counter}`;
const requestsTo = (url: string) => receiver.requests.filter((r) => url.endsWith(r.path.replace(/^\/hooks/, '')));

async function createWebhook(body: Record<string, unknown> = {}) {
  const url = (body.url as string) ?? hookUrl();
  const res = await t.api('POST', '/webhooks', { url, enabled_events: ['device.release_changed', 'webhook.test_fire'], ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ...res.body.webhook, url } as { prn: string; url: string; secret: string; state: string };
}

function signedBy(secret: string, request: { headers: Record<string, unknown>; rawBody: string }) {
  return verifyWebhook(secret, request.headers['canopy-published-at'] as string, request.rawBody, request.headers['canopy-signature'] as string, 60);
}

describe('webhooks CRUD', () => {
  it('creates after a signed verification fire, shows the secret once, reads, lists, updates and deletes', async () => {
    const url = hookUrl();
    const created = await t.api('POST', '/webhooks', { url, description: 'ops', enabled_events: ['device.release_changed'] });
    expect(created.status).toBe(201);
    const hook = created.body.webhook;
    expect(hook).toMatchObject({ url, description: 'ops', enabled_events: ['device.release_changed'], state: 'enabled', organization_prn: `prn:1:${t.organizationId}` });
    expect(hook.prn).toMatch(new RegExp(`^prn:1:${t.organizationId}:webhook:[0-9a-f-]{36}$`));
    expect(hook.secret).toMatch(/^[0-9A-F]{32}$/);

    const [verification] = requestsTo(url);
    expect(verification.body).toMatchObject({ version: 1, type: 'webhook', data: { type: 'test_fire', data: { webhook_prn: hook.prn } } });
    expect(signedBy(hook.secret, verification)).toBe(true);

    const got = await t.api('GET', `/webhooks/${hook.prn}`);
    expect(got.status).toBe(200);
    const { secret, ...withoutSecret } = hook;
    expect(got.body.webhook).toEqual(withoutSecret);
    expect(secret).toBeTruthy();

    const listed = await t.api('GET', '/webhooks?limit=100');
    expect(listed.body.webhooks.find((w: any) => w.prn === hook.prn)).toEqual(withoutSecret);
    expect(listed.body.webhooks.every((w: any) => !('secret' in w))).toBe(true);

    const before = receiver.requests.length;
    const patched = await t.api('PATCH', `/webhooks/${hook.prn}`, { prn: hook.prn, description: null, enabled_events: ['webhook.test_fire'] });
    expect(patched.status).toBe(200);
    expect(patched.body.webhook).toMatchObject({ description: null, enabled_events: ['webhook.test_fire'], state: 'enabled' });
    expect(receiver.requests.length).toBe(before); // nothing to verify: same url, still enabled

    expect((await t.api('DELETE', `/webhooks/${hook.prn}`)).status).toBe(204);
    expect((await t.api('GET', `/webhooks/${hook.prn}`)).status).toBe(404);
  });

  it('rejects bad input field by field', async () => {
    const post = (body: unknown) => t.api('POST', '/webhooks', body);
    const reason = async (body: unknown) => (await post(body)).body.errors[0].context;
    expect((await post({ url: 'http://example.com/x', enabled_events: [] })).status).toBe(422);
    expect(await reason({ url: 'http://example.com/x', enabled_events: [] })).toMatchObject({ field: 'url', reason: 'must_be_https' });
    expect(await reason({ url: 'ftp://example.com/x', enabled_events: [] })).toMatchObject({ field: 'url', reason: 'must_be_https' });
    expect(await reason({ url: 'https://', enabled_events: [] })).toMatchObject({ field: 'url', reason: 'invalid_format' });
    expect(await reason({ url: `https://example.com/${'a'.repeat(1010)}`, enabled_events: [] })).toMatchObject({ field: 'url', reason: 'too_long', max: 1028 });
    expect(await reason({ url: 'https://example.com', enabled_events: ['device.exploded'] })).toMatchObject({ field: 'enabled_events.0', reason: 'invalid_value' });
    expect(await reason({ url: 'https://example.com', enabled_events: ['webhook.test_fire', 'webhook.test_fire'] })).toMatchObject({ field: 'enabled_events', reason: 'duplicate_items' });
    expect(await reason({ url: 'https://example.com', enabled_events: [], state: 'paused' })).toMatchObject({ field: 'state', reason: 'invalid_value' });
    expect(await reason({ url: 'https://example.com', enabled_events: [], description: 'x'.repeat(257) })).toMatchObject({ field: 'description', reason: 'too_long' });
    expect(await reason({ enabled_events: [] })).toMatchObject({ field: 'url', reason: 'required' });
    expect(await reason({ url: 'https://example.com' })).toMatchObject({ field: 'enabled_events', reason: 'required' });

    const hook = await createWebhook({ state: 'disabled' });
    expect((await t.api('PATCH', `/webhooks/${hook.prn}`, { url: 'http://insecure.example.com' })).body.errors[0].context).toMatchObject({ field: 'url', reason: 'must_be_https' });
    for (const ttl of [-1, 2_592_001, 1.5]) {
      const res = await t.api('POST', `/webhooks/${hook.prn}/roll_secret`, { webhook_ttl: ttl });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].context.field).toBe('webhook_ttl');
    }
    expect((await t.api('GET', '/webhooks/prn:1:nope')).status).toBe(404);
  });

  it('refuses to enable a receiver that does not answer 200 in time, and changes nothing', async () => {
    const refusing = async (answer: { status?: number; delayMs?: number; bodyBytes?: number; headers?: Record<string, string> }) => {
      receiver.respond = () => answer;
      const url = hookUrl();
      const res = await t.api('POST', '/webhooks', { url, enabled_events: [] });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].code).toBe('validation');
      return { context: res.body.errors[0].context, requests: requestsTo(url) };
    };
    const before = (await t.api('GET', '/webhooks?limit=100')).body.webhooks.length;

    expect((await refusing({ status: 500 })).context).toMatchObject({ field: 'url', reason: 'verification_failed', failure: 'response_status', status: 500 });
    const redirect = await refusing({ status: 302, headers: { location: `${receiver.url}?followed=1` } });
    expect(redirect.context).toMatchObject({ reason: 'verification_failed', failure: 'response_status', status: 302 });
    expect(receiver.requests.some((r) => r.path.includes('followed'))).toBe(false);
    expect((await refusing({ delayMs: 3_000 })).context).toMatchObject({ reason: 'verification_failed', failure: 'response_timeout', status: null });
    expect((await refusing({ status: 200, bodyBytes: 10 * 1024 * 1024 })).context).toMatchObject({ reason: 'verification_failed', error: 'response_too_large' });
    expect((await t.api('GET', '/webhooks?limit=100')).body.webhooks.length).toBe(before);

    // Enabling, or moving an enabled webhook, is proven the same way.
    receiver.respond = () => ({ status: 200 });
    const hook = await createWebhook({ state: 'disabled' });
    receiver.respond = () => ({ status: 503 });
    const enable = await t.api('PATCH', `/webhooks/${hook.prn}`, { state: 'enabled' });
    expect(enable.body.errors[0].context).toMatchObject({ field: 'url', reason: 'verification_failed', status: 503 });
    expect((await t.api('GET', `/webhooks/${hook.prn}`)).body.webhook.state).toBe('disabled');
    receiver.respond = () => ({ status: 200 });
    const enabled = await t.api('PATCH', `/webhooks/${hook.prn}`, { state: 'enabled' });
    expect(enabled.body.webhook.state).toBe('enabled');
    receiver.respond = () => ({ status: 404 });
    const moved = await t.api('PATCH', `/webhooks/${hook.prn}`, { url: hookUrl() });
    expect(moved.status).toBe(422);
    expect((await t.api('GET', `/webhooks/${hook.prn}`)).body.webhook.url).toBe(hook.url);
  });

  it('hides another organization\'s webhooks and does not send it their events', async () => {
    const other = await t.createOrganization();
    const theirUrl = hookUrl();
    const theirs = (await other.api('POST', '/webhooks', { url: theirUrl, enabled_events: ['device.release_changed'] })).body.webhook;
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/roll_secret'],
      ['POST', '/test_fire'],
      ['GET', '/deliveries'],
      ['POST', '/redeliver'],
    ]) {
      const res = await t.api(method, `/webhooks/${theirs.prn}${path}`, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await t.api('GET', '/webhooks?limit=100')).body.webhooks.map((w: any) => w.prn)).not.toContain(theirs.prn);

    const mine = await createWebhook({ enabled_events: ['device.release_changed'] });
    await t.server.platform.db.transaction((tx) =>
      recordEvent(tx, { organizationId: t.organizationId, type: 'device', subtype: 'release_changed', actorPrn: null, resourcePrn: null, data: releaseChangedData('mine') }),
    );
    await waitFor(() => requestsTo(mine.url).some((r) => r.body?.data?.type === 'release_changed'), 'my release_changed delivery');
    expect(requestsTo(theirUrl).filter((r) => r.body?.data?.type === 'release_changed')).toEqual([]);
  });

  it('is for admins only', async () => {
    const hook = await createWebhook({ state: 'disabled' });
    for (const role of ['read', 'write'] as const) {
      const key = await t.keyWithRole(role);
      expect((await t.api('GET', '/webhooks', undefined, { key })).status).toBe(403);
      expect((await t.api('GET', `/webhooks/${hook.prn}`, undefined, { key })).status).toBe(403);
      expect((await t.api('POST', '/webhooks', { url: hookUrl(), enabled_events: [] }, { key })).status).toBe(403);
      expect((await t.api('POST', `/webhooks/${hook.prn}/roll_secret`, {}, { key })).status).toBe(403);
      expect((await t.api('DELETE', `/webhooks/${hook.prn}`, undefined, { key })).status).toBe(403);
    }
    expect((await t.api('GET', '/webhooks', undefined, { key: await t.keyWithRole('admin') })).status).toBe(200);
    expect((await t.api('GET', '/webhooks', undefined, { key: null })).status).toBe(401);
  });

  it('is described in the OpenAPI document', async () => {
    const paths = Object.keys((await t.api('GET', '/openapi.json')).body.paths);
    for (const path of ['/webhooks', '/webhooks/{prn}', '/webhooks/{prn}/roll_secret', '/webhooks/{prn}/test_fire', '/webhooks/{prn}/deliveries', '/webhooks/{prn}/redeliver']) {
      expect(paths).toContain(path);
    }
  });
});

describe('webhook delivery', () => {
  it('test_fire answers {event} and delivers exactly that envelope, signed, logged', async () => {
    const hook = await createWebhook();
    const fired = await t.api('POST', `/webhooks/${hook.prn}/test_fire`);
    expect(fired.status).toBe(200);
    const event = fired.body.event;
    expect(event).toMatchObject({ version: 1, type: 'webhook', data: { type: 'test_fire', data: { webhook_prn: hook.prn } }, resource_prn: hook.prn });
    await waitFor(() => requestsTo(hook.url).some((r) => r.body?.prn === event.prn), 'the test fire');
    const delivered = requestsTo(hook.url).find((r) => r.body?.prn === event.prn)!;
    const { actor_prn, resource_prn, ...envelope } = event;
    expect(actor_prn).toBeTruthy();
    expect(resource_prn).toBe(hook.prn);
    expect(delivered.body).toEqual(envelope);
    expect(delivered.headers['content-type']).toBe('application/json');
    expect(delivered.headers['canopy-published-at']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(delivered.headers['canopy-signature']).toMatch(/^[0-9A-F]{64}$/);
    expect(signedBy(hook.secret, delivered)).toBe(true);

    await waitFor(async () => (await t.api('GET', `/webhooks/${hook.prn}/deliveries`)).body.deliveries.length > 0, 'the log entry');
    const log = await t.api('GET', `/webhooks/${hook.prn}/deliveries`);
    expect(log.body.deliveries[0]).toMatchObject({ event_prn: event.prn, attempt: 1, status_code: 200, error: null, next_attempt_at: null });
    expect(log.body.deliveries[0].latency_ms).toBeGreaterThanOrEqual(0);
    expect(log.body.next_page).toBeNull();

    const listed = await t.api('GET', `/events?type=webhook&subtype=test_fire&resource_prn=${hook.prn}`);
    expect(listed.body.events.map((e: any) => e.prn)).toContain(event.prn);
  });

  it('delivers recorded events only to enabled, subscribed webhooks, in the event\'s transaction', async () => {
    const subscribed = await createWebhook({ enabled_events: ['device.release_changed'] });
    const other = await createWebhook({ enabled_events: ['webhook.test_fire'] });
    const disabled = await createWebhook({ enabled_events: ['device.release_changed'], state: 'disabled' });
    // A rolled-back transaction leaves no delivery behind.
    await t.server.platform.db
      .transaction(async (tx) => {
        await recordEvent(tx, { organizationId: t.organizationId, type: 'device', subtype: 'release_changed', actorPrn: null, resourcePrn: null, data: releaseChangedData('rolled back') });
        throw new Error('roll back');
      })
      .catch(() => {});
    const event = await t.server.platform.db.transaction((tx) =>
      recordEvent(tx, { organizationId: t.organizationId, type: 'device', subtype: 'release_changed', actorPrn: null, resourcePrn: null, data: releaseChangedData('committed') }),
    );
    await waitFor(() => requestsTo(subscribed.url).some((r) => r.body?.data?.data?.device?.identifier === 'committed'), 'the subscribed delivery');
    await new Promise((r) => setTimeout(r, 300));
    expect(requestsTo(subscribed.url).filter((r) => r.body?.data?.data?.device?.identifier === 'rolled back')).toEqual([]);
    expect(requestsTo(other.url).filter((r) => r.body?.data?.type === 'release_changed')).toEqual([]);
    expect(requestsTo(disabled.url)).toEqual([]);
    expect(requestsTo(subscribed.url).find((r) => r.body?.data?.data?.device?.identifier === 'committed')!.body.prn).toBe(`prn:1:${t.organizationId}:event:${event.id}`);
    // A test fire reaches a disabled webhook (the public API's way to check a url before enabling
    // it), and only that one event does.
    const fired = await t.api('POST', `/webhooks/${disabled.prn}/test_fire`);
    expect(fired.status).toBe(200);
    await waitFor(() => requestsTo(disabled.url).some((r) => r.body?.prn === fired.body.event.prn), 'the test fire of a disabled webhook');
    expect(signedBy(disabled.secret, requestsTo(disabled.url)[0])).toBe(true);
    expect(requestsTo(disabled.url).map((r) => r.body?.data?.type)).toEqual(['test_fire']);
    expect((await t.api('GET', `/webhooks/${disabled.prn}`)).body.webhook.state).toBe('disabled');
  });

  it('retries failures with backoff, logging every attempt', async () => {
    const hook = await createWebhook();
    let failuresLeft = 2;
    receiver.respond = ({ path }) => (path.endsWith(hook.url.split('?')[1]) && failuresLeft-- > 0 ? { status: 500 } : { status: 200 });
    const event = (await t.api('POST', `/webhooks/${hook.prn}/test_fire`)).body.event;
    await waitFor(() => requestsTo(hook.url).some((r) => r.body?.prn === event.prn && r.status === 200), 'the successful retry');
    await waitFor(async () => (await t.api('GET', `/webhooks/${hook.prn}/deliveries?order=asc&limit=100`)).body.deliveries.length >= 3, 'three attempts logged');
    const attempts = (await t.api('GET', `/webhooks/${hook.prn}/deliveries?order=asc&limit=100`)).body.deliveries.filter((d: any) => d.event_prn === event.prn);
    expect(attempts.map((a: any) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 500, 'response_status'],
      [2, 500, 'response_status'],
      [3, 200, null],
    ]);
    expect(attempts[0].next_attempt_at).toMatch(/Z$/);
    expect(attempts[2].next_attempt_at).toBeNull();
    const failed = await t.api('GET', `/webhooks/${hook.prn}/deliveries?search=${encodeURIComponent('status_code:500')}&limit=100`);
    expect(failed.body.deliveries.length).toBe(2);
  });

  it('gives up after the retry window with webhook.request_failed, which is never delivered', async () => {
    const hook = await createWebhook();
    receiver.respond = ({ path }) => (path.endsWith(hook.url.split('?')[1]) ? { status: 502 } : { status: 200 });
    const event = (await t.api('POST', `/webhooks/${hook.prn}/test_fire`)).body.event;
    const failures = () => t.api('GET', `/events?type=webhook&subtype=request_failed&resource_prn=${hook.prn}`);
    await waitFor(async () => (await failures()).body.events.length > 0, 'webhook.request_failed', 10_000);
    const failed = (await failures()).body.events[0];
    expect(failed.data.data).toEqual({ webhook_prn: hook.prn, event_prn: event.prn, failure: 'response_status', status: 502 });
    const log = (await t.api('GET', `/webhooks/${hook.prn}/deliveries?limit=100`)).body.deliveries;
    expect(log[0].next_attempt_at).toBeNull();
    expect(receiver.requests.some((r) => r.body?.data?.type === 'request_failed')).toBe(false);
  });

  it('signs with both secrets while a rolled secret lives, new first, then only the new one', async () => {
    const hook = await createWebhook();
    const rolled = await t.api('POST', `/webhooks/${hook.prn}/roll_secret`, { webhook_ttl: 3600 });
    expect(rolled.status).toBe(200);
    const newSecret = rolled.body.webhook.secret;
    expect(newSecret).toMatch(/^[0-9A-F]{32}$/);
    expect(newSecret).not.toBe(hook.secret);
    const first = (await t.api('POST', `/webhooks/${hook.prn}/test_fire`)).body.event;
    await waitFor(() => requestsTo(hook.url).some((r) => r.body?.prn === first.prn), 'delivery after the roll');
    const both = requestsTo(hook.url).find((r) => r.body?.prn === first.prn)!;
    const [newer, older] = (both.headers['canopy-signature'] as string).split(',');
    expect(verifyWebhook(newSecret, both.headers['canopy-published-at'] as string, both.rawBody, newer, 60)).toBe(true);
    expect(verifyWebhook(hook.secret, both.headers['canopy-published-at'] as string, both.rawBody, older, 60)).toBe(true);

    // The public API's clients roll with no body, or an empty JSON one: ttl 0.
    const bare = await t.api('POST', `/webhooks/${hook.prn}/roll_secret`);
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
    expect(bare.body.webhook.secret).toMatch(/^[0-9A-F]{32}$/);
    const empty = await t.api('POST', `/webhooks/${hook.prn}/roll_secret`, undefined, { raw: '', headers: { 'content-type': 'application/json' } });
    expect(empty.status, JSON.stringify(empty.body)).toBe(200);
    expect(empty.body.webhook.secret).not.toBe(bare.body.webhook.secret);
    const broken = await t.api('POST', `/webhooks/${hook.prn}/roll_secret`, undefined, { raw: '{', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    const again = await t.api('POST', `/webhooks/${hook.prn}/roll_secret`, {});
    const latest = again.body.webhook.secret;
    const second = (await t.api('POST', `/webhooks/${hook.prn}/test_fire`)).body.event;
    await waitFor(() => requestsTo(hook.url).some((r) => r.body?.prn === second.prn), 'delivery after the second roll');
    const one = requestsTo(hook.url).find((r) => r.body?.prn === second.prn)!;
    expect(one.headers['canopy-signature']).toMatch(/^[0-9A-F]{64}$/);
    expect(signedBy(latest, one)).toBe(true);
    expect(signedBy(newSecret, one)).toBe(false);
  });

  it('redelivers one event or a time range on request', async () => {
    const hook = await createWebhook();
    const start = new Date().toISOString();
    const a = (await t.api('POST', `/webhooks/${hook.prn}/test_fire`)).body.event;
    const b = (await t.api('POST', `/webhooks/${hook.prn}/test_fire`)).body.event;
    const count = (prn: string) => requestsTo(hook.url).filter((r) => r.body?.prn === prn).length;
    await waitFor(() => count(a.prn) === 1 && count(b.prn) === 1, 'first deliveries');

    const one = await t.api('POST', `/webhooks/${hook.prn}/redeliver`, { event_prn: a.prn });
    expect(one.body).toEqual({ redelivery: { queued: 1 } });
    await waitFor(() => count(a.prn) === 2, 'the redelivery of one event');

    const range = await t.api('POST', `/webhooks/${hook.prn}/redeliver`, { inserted_at_gte: start });
    expect(range.body).toEqual({ redelivery: { queued: 2 } });
    await waitFor(() => count(a.prn) === 3 && count(b.prn) === 2, 'the redelivery of the range');

    expect((await t.api('POST', `/webhooks/${hook.prn}/redeliver`, {})).body.errors.map((e: any) => e.context.field)).toEqual(['event_prn', 'inserted_at_gte']);
    expect((await t.api('POST', `/webhooks/${hook.prn}/redeliver`, { event_prn: `prn:1:${t.organizationId}:event:00000000-0000-4000-8000-000000000000` })).body.errors[0].context).toEqual({ field: 'event_prn', reason: 'not_found' });
    expect((await t.api('POST', `/webhooks/${hook.prn}/redeliver`, { inserted_at_gte: 'yesterday' })).body.errors[0].context).toEqual({ field: 'inserted_at_gte', reason: 'invalid_date_time' });
  });
});
