/**
 * The delivery log (every attempt, newest first by default) and redelivery: queueing a fresh
 * delivery of one event, or of every event in a time range the webhook subscribes to.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { events } from '../events/schema';
import type { Actor } from '../http/actor';
import { invalidField, validationError } from '../http/errors';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { resourceIdFromPrn, resourcePrn } from '../core/prn';
import { searchCondition, type SearchFields } from '../search/search';
import { parseDateTime, toRfc3339 } from '../core/time';
import { webhookAttempts, webhookDeliveries } from './schema';
import { getWebhook, requireEnabled } from './service';

export type AttemptRow = typeof webhookAttempts.$inferSelect;

export function attemptToWire(row: AttemptRow) {
  return {
    delivery_id: row.deliveryId,
    event_prn: resourcePrn(row.organizationId, 'event', row.eventId),
    attempt: row.attempt,
    attempted_at: toRfc3339(row.insertedAt),
    status_code: row.statusCode,
    latency_ms: row.latencyMs,
    error: row.error,
    detail: row.detail,
    next_attempt_at: toRfc3339(row.nextAttemptAt),
  };
}

export const ATTEMPT_SEARCH: SearchFields = {
  status_code: { column: webhookAttempts.statusCode, type: 'number', operators: [':', '<', '<=', '>', '>='] },
  error: { column: webhookAttempts.error, type: 'string', operators: [':'] },
  inserted_at: { column: webhookAttempts.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
};

export async function listAttempts(db: Executor, actor: Actor, prn: string, query: ListQuery) {
  const webhook = await getWebhook(db, actor, prn);
  const page = pageRequest(query);
  const { where, orderBy } = keyset(webhookAttempts, page);
  const rows = await db
    .select()
    .from(webhookAttempts)
    .where(combine(eq(webhookAttempts.webhookId, webhook.id), where, searchCondition(query.search, ATTEMPT_SEARCH)))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows, page);
}

/** A time range may cover a lot; more than this in one call is a 422 asking for a narrower one. */
export const MAX_REDELIVERIES = 10_000;

export interface RedeliverInput {
  event_prn?: string;
  inserted_at_gte?: string;
  inserted_at_lt?: string;
}

function timeBound(field: keyof RedeliverInput, raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const value = parseDateTime(raw);
  if (!value) throw invalidField(field, 'invalid_date_time');
  return value;
}

/** The events a redelivery covers: one named event, or the subscribed events of a range. */
function selection(organizationId: string, webhookId: string, enabledEvents: string[], input: RedeliverInput) {
  const webhookPrn = resourcePrn(organizationId, 'webhook', webhookId);
  const notRequestFailed = sql`not (${events.type} = 'webhook' and ${events.subtype} = 'request_failed')`;
  if (input.event_prn !== undefined) {
    const eventId = resourceIdFromPrn(input.event_prn, 'event', organizationId);
    if (!eventId) throw invalidField('event_prn', 'not_found');
    return and(eq(events.organizationId, organizationId), eq(events.id, eventId), notRequestFailed)!;
  }
  const since = timeBound('inserted_at_gte', input.inserted_at_gte);
  const before = timeBound('inserted_at_lt', input.inserted_at_lt);
  if (!since) throw validationError([{ field: 'event_prn', reason: 'required' }, { field: 'inserted_at_gte', reason: 'required' }]);
  const subscribed = sql`(${events.type} || '.' || ${events.subtype}) in (${sql.join([...enabledEvents, ''].map((e) => sql`${e}`), sql`, `)})`;
  // A webhook's test fires are its own; another webhook's are not redelivered to it.
  const ownTestFire = sql`(${events.type} = 'webhook' and ${events.subtype} = 'test_fire' and ${events.resourcePrn} = ${webhookPrn})`;
  const relevant = sql`(${ownTestFire} or (${subscribed} and not (${events.type} = 'webhook' and ${events.subtype} = 'test_fire')))`;
  return combine(
    eq(events.organizationId, organizationId),
    sql`${events.insertedAt} >= ${since}::timestamptz`,
    before ? sql`${events.insertedAt} < ${before}::timestamptz` : undefined,
    notRequestFailed,
    relevant,
  )!;
}

/** Queues new deliveries; answers how many. Earlier deliveries and their log stay as they were. */
export async function redeliver(db: Database, actor: Actor, prn: string, input: RedeliverInput): Promise<number> {
  return db.transaction(async (tx) => {
    const webhook = await getWebhook(tx, actor, prn);
    requireEnabled(webhook);
    const where = selection(webhook.organizationId, webhook.id, webhook.enabledEvents, input);
    const [{ count }] = await tx.select({ count: sql<number>`count(*)::int` }).from(events).where(where);
    if (input.event_prn !== undefined && count === 0) throw invalidField('event_prn', 'not_found');
    if (count > MAX_REDELIVERIES) throw invalidField('inserted_at_gte', 'too_many_events', { max: MAX_REDELIVERIES, count });
    await tx.execute(sql`
      insert into ${webhookDeliveries} (id, organization_id, webhook_id, event_id)
      select gen_random_uuid(), ${webhook.organizationId}, ${webhook.id}, ${events.id} from ${events} where ${where}`);
    return count;
  });
}
