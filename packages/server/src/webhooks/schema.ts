import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { id, insertedAt, organizationId, timestamptz, updatedAt } from '../db/columns';
import { SUBSCRIBABLE_EVENTS, type SubscribableEventName } from '@canopy/sdk/event-catalogue';
import { events } from '../events/schema';

/** What `enabled_events` may list: the event catalogue's subscribable events. */
export const WEBHOOK_EVENTS: readonly SubscribableEventName[] = SUBSCRIBABLE_EVENTS;
export type WebhookEventName = SubscribableEventName;
export type WebhookState = 'enabled' | 'disabled';

export const webhooks = pgTable(
  'webhooks',
  {
    id: id(),
    organizationId: organizationId(),
    url: text('url').notNull(),
    description: text('description'),
    enabledEvents: jsonb('enabled_events').$type<WebhookEventName[]>().notNull(),
    state: text('state').$type<WebhookState>().notNull(),
    /** SecretBox-sealed; the plain secret is only ever shown in the create and roll answers. */
    secretSealed: text('secret_sealed').notNull(),
    /** The secret before the last roll, still signing until `previous_secret_expires_at`. */
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: timestamptz('previous_secret_expires_at'),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhooks_org_inserted').on(t.organizationId, t.insertedAt, t.id)],
);

export type DeliveryState = 'pending' | 'succeeded' | 'failed';

/**
 * The transactional outbox: one row per (webhook, event) to deliver, written in the event's own
 * transaction. Workers claim due rows with FOR UPDATE SKIP LOCKED and a lease (`locked_until`,
 * `lease_token`); a succeeded or failed row is never claimed again.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: id(),
    organizationId: organizationId(),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    state: text('state').$type<DeliveryState>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().defaultNow(),
    lockedUntil: timestamptz('locked_until'),
    leaseToken: uuid('lease_token'),
    /** When the first attempt started: the benchmark's commit -> first attempt latency. */
    firstAttemptAt: timestamptz('first_attempt_at'),
    completedAt: timestamptz('completed_at'),
    insertedAt: insertedAt(),
  },
  (t) => [
    index('webhook_deliveries_due').on(t.nextAttemptAt).where(sql`state = 'pending'`),
    index('webhook_deliveries_webhook').on(t.webhookId, t.insertedAt),
  ],
);

/** Every attempt of every delivery: what GET /webhooks/{prn}/deliveries shows. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: id(),
    organizationId: organizationId(),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    eventId: uuid('event_id').notNull(),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    detail: text('detail'),
    /** Null when this attempt succeeded or was the last one. */
    nextAttemptAt: timestamptz('next_attempt_at'),
    insertedAt: insertedAt(),
  },
  (t) => [index('webhook_attempts_webhook_inserted').on(t.webhookId, t.insertedAt, t.id)],
);
