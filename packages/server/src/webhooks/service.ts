/**
 * Webhooks: where an organization's events are POSTed. Creating an enabled webhook, enabling
 * one, or moving an enabled one to a new url first proves the receiver answers (verification.ts).
 * The secret is generated here, sealed at rest, and shown only in the create and roll answers.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import type { Actor } from '../http/actor';
import { conflict, invalidField, notFound } from '../http/errors';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { organizationPrn, resourceIdFromPrn, resourcePrn } from '../core/prn';
import { searchCondition, type SearchFields } from '../search/search';
import { timestampsOf } from '../http/wire-fields';
import { recordEvent, type EventRow } from '../events/service';
import type { Platform } from '../platform';
import './outbox';
import { webhooks, type WebhookEventName, type WebhookState } from './schema';
import { generateWebhookSecret, signingSecrets } from './secrets';
import { verifyReceiver } from './verification';

/** Test fires answer the event they recorded, in its wire form (routes.ts). */
export { eventToWire } from '../events/service';

export type WebhookRow = typeof webhooks.$inferSelect;

export function webhookToWire(row: WebhookRow) {
  return {
    prn: resourcePrn(row.organizationId, 'webhook', row.id),
    organization_prn: organizationPrn(row.organizationId),
    url: row.url,
    description: row.description,
    enabled_events: row.enabledEvents,
    state: row.state,
    ...timestampsOf(row),
  };
}

export const WEBHOOK_SEARCH: SearchFields = {
  url: { column: webhooks.url, type: 'string', operators: [':', '-', '~'] },
  description: { column: webhooks.description, type: 'string', operators: [':', '-', '~'] },
  state: { column: webhooks.state, type: 'string', operators: [':'] },
  inserted_at: { column: webhooks.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  updated_at: { column: webhooks.updatedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
};

/** The schema bounds the length; this checks it is an absolute https url a request can go to. */
function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidField('url', 'invalid_format');
  }
  if (parsed.protocol !== 'https:' || !/^https:\/\//i.test(url)) throw invalidField('url', 'must_be_https');
  if (!parsed.hostname) throw invalidField('url', 'invalid_format');
}

export interface WebhookInput {
  url: string;
  description?: string | null;
  enabled_events: WebhookEventName[];
  state?: WebhookState;
}

export async function createWebhook(platform: Platform, actor: Actor, input: WebhookInput): Promise<{ row: WebhookRow; secret: string }> {
  checkUrl(input.url);
  const id = randomUUID();
  const secret = generateWebhookSecret();
  const state = input.state ?? 'enabled';
  if (state === 'enabled') await verifyReceiver(platform, actor.organizationId, id, input.url, [secret]);
  const [row] = await platform.db
    .insert(webhooks)
    .values({
      id,
      organizationId: actor.organizationId,
      url: input.url,
      description: input.description ?? null,
      enabledEvents: input.enabled_events,
      state,
      secretSealed: platform.secrets.seal(secret),
    })
    .returning();
  return { row, secret };
}

/** The webhook a prn names in the caller's organization; 404 for any other prn. */
export async function getWebhook(db: Executor, actor: Actor, prn: string): Promise<WebhookRow> {
  const id = resourceIdFromPrn(prn, 'webhook', actor.organizationId);
  const [row] = id ? await db.select().from(webhooks).where(and(eq(webhooks.id, id), eq(webhooks.organizationId, actor.organizationId))).limit(1) : [];
  if (!row) throw notFound('webhook', prn);
  return row;
}

export async function listWebhooks(db: Executor, actor: Actor, query: ListQuery) {
  const page = pageRequest(query);
  const { where, orderBy } = keyset(webhooks, page);
  const rows = await db
    .select()
    .from(webhooks)
    .where(combine(eq(webhooks.organizationId, actor.organizationId), where, searchCondition(query.search, WEBHOOK_SEARCH)))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows, page);
}

export type WebhookChanges = Partial<WebhookInput>;

export async function updateWebhook(platform: Platform, actor: Actor, prn: string, changes: WebhookChanges): Promise<WebhookRow> {
  const current = await getWebhook(platform.db, actor, prn);
  if (changes.url !== undefined) checkUrl(changes.url);
  const url = changes.url ?? current.url;
  const state = changes.state ?? current.state;
  const needsProof = state === 'enabled' && (current.state !== 'enabled' || url !== current.url);
  // Proven before the write and outside any transaction: a slow receiver must not hold locks.
  if (needsProof) await verifyReceiver(platform, actor.organizationId, current.id, url, signingSecrets(platform.secrets, current));
  const set: Partial<typeof webhooks.$inferInsert> = { url, state };
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.enabled_events !== undefined) set.enabledEvents = changes.enabled_events;
  const [row] = await platform.db
    .update(webhooks)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(webhooks.id, current.id))
    .returning();
  if (!row) throw notFound('webhook', prn);
  return row;
}

export async function deleteWebhook(db: Executor, actor: Actor, prn: string): Promise<void> {
  const row = await getWebhook(db, actor, prn);
  // Its pending deliveries and their log go with it (foreign keys cascade).
  await db.delete(webhooks).where(eq(webhooks.id, row.id));
}

/** A new secret; the old one keeps signing for `ttlSeconds` (0: it stops at once). */
export async function rollSecret(platform: Platform, actor: Actor, prn: string, ttlSeconds: number): Promise<{ row: WebhookRow; secret: string }> {
  const current = await getWebhook(platform.db, actor, prn);
  const secret = generateWebhookSecret();
  const [row] = await platform.db
    .update(webhooks)
    .set({
      secretSealed: platform.secrets.seal(secret),
      previousSecretSealed: ttlSeconds > 0 ? current.secretSealed : null,
      previousSecretExpiresAt: ttlSeconds > 0 ? sql`now() + make_interval(secs => ${ttlSeconds})` : null,
      updatedAt: sql`now()`,
    })
    .where(eq(webhooks.id, current.id))
    .returning();
  return { row, secret };
}

export function requireEnabled(webhook: WebhookRow): void {
  if (webhook.state !== 'enabled') throw conflict('webhook_disabled', { prn: resourcePrn(webhook.organizationId, 'webhook', webhook.id) });
}

/** Records a `webhook.test_fire` event; the outbox delivers it to this webhook only. */
export async function testFire(platform: Platform, actor: Actor, prn: string): Promise<EventRow> {
  return platform.db.transaction(async (tx) => {
    // Disabled webhooks too (the public API allows it): the way to check a url before enabling it.
    const webhook = await getWebhook(tx, actor, prn);
    const webhookPrn = resourcePrn(webhook.organizationId, 'webhook', webhook.id);
    return recordEvent(tx, {
      organizationId: webhook.organizationId,
      type: 'webhook',
      subtype: 'test_fire',
      actorPrn: actor.prn,
      resourcePrn: webhookPrn,
      data: { webhook_prn: webhookPrn },
    });
  });
}
