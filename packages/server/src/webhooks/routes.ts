import { Type } from 'typebox';
import { optionalBody } from '../http/empty-body';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { Description, list, NoContent, Nullable, Prn, PrnParams, ResourceFields, single, STANDARD_ERRORS, Timestamp } from '../http/schemas';
import { attemptToWire, listAttempts, MAX_REDELIVERIES, redeliver } from './deliveries';
import { WEBHOOK_EVENTS } from './schema';
import { MAX_SECRET_TTL_SECONDS } from './secrets';
import { createWebhook, deleteWebhook, eventToWire, getWebhook, listWebhooks, rollSecret, testFire, updateWebhook, webhookToWire } from './service';

// Webhooks are configured by admins only (issue 2): a webhook sees every event of the organization.
const ADMIN = { role: 'admin' as const };
const TAGS = ['webhooks'];

const Url = Type.String({
  minLength: 1,
  maxLength: 1028,
  description: 'Where events are POSTed: an `https://` url, at most 1028 characters. It must resolve to a public address.',
  examples: ['https://hooks.example.com/canopy'],
});
const EnabledEvents = Type.Array(Type.Enum([...WEBHOOK_EVENTS]), {
  uniqueItems: true,
  description: 'The events delivered. `webhook.test_fire` events are always delivered to the webhook they test.',
  examples: [['device.release_changed']],
});
const State = Type.Enum(['enabled', 'disabled'], { description: 'Only enabled webhooks receive deliveries. Enabling one sends a test fire first.' });
const Secret = Type.String({ pattern: '^[0-9A-F]{32}$', description: 'Signs deliveries. Shown only when created and when rolled.', examples: ['3F9A1C0B7D2E4F6A8B0C1D2E3F4A5B6C'] });

const webhookFields = {
  ...ResourceFields,
  url: Url,
  description: Nullable(Description()),
  enabled_events: EnabledEvents,
  state: State,
};
const Webhook = Type.Object(webhookFields);
const WebhookWithSecret = Type.Object({ ...webhookFields, secret: Secret });
const WebhookParams = PrnParams('Resource name of the webhook.');

const Event = Type.Object({
  version: Type.Literal(1),
  prn: Prn('Resource name of the event.'),
  type: Type.String(),
  inserted_at: Timestamp('When it happened.'),
  data: Type.Object({ type: Type.String(), data: Type.Record(Type.String(), Type.Unknown()) }),
  actor_prn: Nullable(Type.String()),
  resource_prn: Nullable(Type.String()),
});

const Attempt = Type.Object({
  delivery_id: Type.String({ format: 'uuid', description: 'One delivery of one event; its retries share it.' }),
  event_prn: Prn('The event delivered.'),
  attempt: Type.Integer({ minimum: 1, description: 'Which try of this delivery, from 1.' }),
  attempted_at: Timestamp('When the attempt was made.'),
  status_code: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when there was no answer." })),
  latency_ms: Type.Integer({ description: 'From sending to the end of the answer (or the failure).' }),
  error: Nullable(
    Type.String({
      description:
        'Null on success; else address_not_allowed (the host does not resolve, or only to addresses webhooks may not go to), response_timeout, connection_failed, tls_failed, response_too_large or response_status.',
    }),
  ),
  detail: Nullable(Type.String({ description: 'What went wrong, in words.' })),
  next_attempt_at: Nullable(Timestamp('When it will be tried again; null after a success or the last try.')),
});

export const webhookRoutes: ContextRoutes = (app, platform) => {
  const { db } = platform;

  app.post('/webhooks', {
    config: ADMIN,
    schema: {
      tags: TAGS,
      summary: 'Create a webhook',
      description:
        'The answer carries the signing `secret`, the only time it is shown apart from rolls. An enabled webhook (the default) must first answer a test fire with 200 within 10 seconds, else 422 `url` `verification_failed`.',
      body: Type.Object({ url: Url, description: Type.Optional(Nullable(Description())), enabled_events: EnabledEvents, state: Type.Optional(State) }),
      response: { 201: single('webhook', WebhookWithSecret), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => {
      const { row, secret } = await createWebhook(platform, actorOf(request), request.body);
      return reply.code(201).send({ webhook: { ...webhookToWire(row), secret } });
    },
  });

  app.get('/webhooks', {
    config: ADMIN,
    schema: {
      tags: TAGS,
      summary: 'List webhooks',
      description: 'Search fields: url and description (`:` `-` `~`), state (`:`), inserted_at and updated_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('webhooks', Webhook), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listWebhooks(db, actorOf(request), request.query);
      return { webhooks: page.items.map(webhookToWire), next_page: page.nextPage };
    },
  });

  app.get('/webhooks/:prn', {
    config: ADMIN,
    schema: { tags: TAGS, summary: 'Get a webhook', description: 'One webhook by its prn (without its secret).', params: WebhookParams, response: { 200: single('webhook', Webhook), ...STANDARD_ERRORS } },
    handler: async (request) => ({ webhook: webhookToWire(await getWebhook(db, actorOf(request), request.params.prn)) }),
  });

  app.patch('/webhooks/:prn', {
    config: ADMIN,
    schema: {
      tags: TAGS,
      summary: 'Update a webhook',
      description: 'Enabling a webhook, or changing the url of an enabled one, first sends a test fire; anything but a 200 within 10 seconds answers 422 `url` `verification_failed` and changes nothing.',
      params: WebhookParams,
      body: Type.Object({ url: Type.Optional(Url), description: Type.Optional(Nullable(Description())), enabled_events: Type.Optional(EnabledEvents), state: Type.Optional(State) }),
      response: { 200: single('webhook', Webhook), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ webhook: webhookToWire(await updateWebhook(platform, actorOf(request), request.params.prn, request.body)) }),
  });

  app.delete('/webhooks/:prn', {
    config: ADMIN,
    schema: { tags: TAGS, summary: 'Delete a webhook', description: 'Pending deliveries are dropped with it.', params: WebhookParams, response: { 204: NoContent('Deleted.'), ...STANDARD_ERRORS } },
    handler: async (request, reply) => {
      await deleteWebhook(db, actorOf(request), request.params.prn);
      return reply.code(204).send();
    },
  });

  app.post('/webhooks/:prn/roll_secret', {
    config: ADMIN,
    ...optionalBody,
    schema: {
      tags: TAGS,
      summary: "Roll a webhook's secret",
      description: `A new secret signs from now on. For \`webhook_ttl\` seconds (0 to ${MAX_SECRET_TTL_SECONDS}, default 0) the old one signs too: both signatures are sent, comma-separated, new first.`,
      params: WebhookParams,
      // No body, an empty one, or `{}`: ttl 0 (the public API's clients send nothing).
      body: Type.Object({ webhook_ttl: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SECRET_TTL_SECONDS, default: 0 })) }),
      response: { 200: single('webhook', WebhookWithSecret), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const { row, secret } = await rollSecret(platform, actorOf(request), request.params.prn, request.body.webhook_ttl ?? 0);
      return { webhook: { ...webhookToWire(row), secret } };
    },
  });

  app.post('/webhooks/:prn/test_fire', {
    config: ADMIN,
    schema: {
      tags: TAGS,
      summary: 'Send a test event',
      description: 'Records a `webhook.test_fire` event and delivers it to this webhook like any other event, whether the webhook is enabled or disabled (so a url can be checked before enabling it).',
      params: WebhookParams,
      response: { 200: single('event', Event), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ event: eventToWire(await testFire(platform, actorOf(request), request.params.prn)) }),
  });

  app.get('/webhooks/:prn/deliveries', {
    config: ADMIN,
    schema: {
      tags: TAGS,
      summary: "List a webhook's delivery attempts",
      description: 'Every attempt: when, the status code, latency, error and the next try. Search fields: status_code, error, inserted_at.',
      params: WebhookParams,
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('deliveries', Attempt), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listAttempts(db, actorOf(request), request.params.prn, request.query);
      return { deliveries: page.items.map(attemptToWire), next_page: page.nextPage };
    },
  });

  app.post('/webhooks/:prn/redeliver', {
    config: ADMIN,
    schema: {
      tags: TAGS,
      summary: 'Deliver events again',
      description: `Queues a new delivery of one event (\`event_prn\`) or of every subscribed event with \`inserted_at_gte\` <= inserted_at < \`inserted_at_lt\` (at most ${MAX_REDELIVERIES}). \`webhook.request_failed\` events are never delivered.`,
      params: WebhookParams,
      body: Type.Object({
        event_prn: Type.Optional(Prn('The event to deliver again.')),
        inserted_at_gte: Type.Optional(Type.String({ description: 'Start of the range (RFC 3339).', examples: ['2025-06-01T00:00:00Z'] })),
        inserted_at_lt: Type.Optional(Type.String({ description: 'End of the range, exclusive; default now.', examples: ['2025-06-02T00:00:00Z'] })),
      }),
      response: { 200: single('redelivery', Type.Object({ queued: Type.Integer({ description: 'Deliveries queued.' }) })), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ redelivery: { queued: await redeliver(db, actorOf(request), request.params.prn, request.body) } }),
  });
};
