/**
 * `canopy webhooks test-fire` against a real server delivering to a real HTTPS receiver on this
 * machine (the server's test receiver: its own CA, trusted through the server's webhook CA
 * setting; loopback allowed as with CANOPY_WEBHOOK_ALLOW_PRIVATE=1).
 */
import { verifyWebhook } from '@canopy/sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startReceiver, waitFor, type Receiver } from '../../server/test/support/webhook-receiver';
import { canopy, canopyOk } from './support/run-canopy';
import { cliEnv, startTestServer, type TestServer } from './support/server';

let receiver: Receiver;
let server: TestServer;
const env: Record<string, string> = {};
const ok = canopyOk(env);

// The receiver first: the server has to be told at start which CA the receiver's certificate chains to.
beforeAll(async () => {
  receiver = await startReceiver();
  server = await startTestServer({ webhookAllowPrivate: true, webhookCaFiles: [receiver.caFile] });
  Object.assign(env, cliEnv(server));
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

it('test-fire answers the event and the receiver gets it, signed with the webhook secret', async () => {
  const webhook = (await ok(['webhooks', 'create', '--url', receiver.url, '--enabled-events', 'webhook.test_fire'])).webhook;
  expect(webhook).toMatchObject({ url: receiver.url, state: 'enabled', secret: expect.any(String) });

  const { event } = await ok(['webhooks', 'test-fire', webhook.prn]);
  expect(event).toMatchObject({ type: 'webhook', data: { type: 'test_fire', data: { webhook_prn: webhook.prn } } });
  await waitFor(() => receiver.requests.some((r) => r.body?.prn === event.prn), 'the test fire at the receiver', 60_000);
  const delivery = receiver.requests.find((r) => r.body?.prn === event.prn)!;
  expect(delivery.body.data).toEqual(event.data);
  expect(verifyWebhook(webhook.secret, delivery.headers['canopy-published-at'] as string, delivery.rawBody, delivery.headers['canopy-signature'] as string)).toBe(true);

  // A disabled webhook is fired too (the public API's way to check a url before enabling it).
  expect((await ok(['webhooks', 'update', webhook.prn, '--state', 'disabled'])).webhook.state).toBe('disabled');
  const disabledFire = (await ok(['webhooks', 'test-fire', webhook.prn])).event;
  await waitFor(() => receiver.requests.some((r) => r.body?.prn === disabledFire.prn), 'the test fire of the disabled webhook', 60_000);
  // An unknown webhook: the API's 404 becomes exit code 1 with the status in the message.
  const refused = await canopy(['webhooks', 'test-fire', webhook.prn.replace(/[0-9a-f-]{36}$/, '00000000-0000-4000-8000-000000000000')], env);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/answered 404/);
});
