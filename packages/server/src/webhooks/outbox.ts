/**
 * The transactional outbox: when any context records an event, the same transaction writes one
 * pending delivery per webhook that should receive it, so a delivery exists exactly when its
 * event committed. Rules:
 *   - webhook.request_failed is never delivered (a failing receiver would feed itself);
 *   - webhook.test_fire goes only to the webhook it tests (its resource_prn);
 *   - every other event goes to each enabled webhook of the organization subscribed to it.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { onEventRecorded, type EventRow, type PendingEvent } from '../events/service';
import { resourceIdFromPrn } from '../core/prn';
import { webhookDeliveries, webhooks } from './schema';

export function eventName(event: Pick<EventRow, 'type' | 'subtype'>): string {
  return `${event.type}.${event.subtype}`;
}

export async function writeOutboxRows(tx: Executor, event: EventRow): Promise<void> {
  const name = eventName(event);
  if (name === 'webhook.request_failed') return;
  const recipients =
    name === 'webhook.test_fire'
      ? sql`${webhooks.id} = ${resourceIdFromPrn(event.resourcePrn, 'webhook', event.organizationId)}`
      : sql`${webhooks.state} = 'enabled' and ${webhooks.enabledEvents} @> ${JSON.stringify([name])}::jsonb`;
  await tx.execute(sql`
    insert into ${webhookDeliveries} (id, organization_id, webhook_id, event_id)
    select gen_random_uuid(), ${webhooks.organizationId}, ${webhooks.id}, ${event.id}
    from ${webhooks}
    where ${webhooks.organizationId} = ${event.organizationId} and ${recipients}`);
}

/**
 * The same rule as one data-modifying statement over events about to be inserted by the
 * statement it joins (recordEvent's one prepared statement): the webhooks are matched inside that
 * statement, so batching costs no extra round trip and sees exactly the webhooks committed when
 * the statement runs (no cache, no staleness). test_fire is left to writeOutboxRows.
 */
export function outboxStatement(list: readonly PendingEvent[]) {
  const delivered = list.filter((event) => eventName(event) !== 'webhook.request_failed');
  if (delivered.some((event) => eventName(event) === 'webhook.test_fire')) return undefined;
  if (delivered.length === 0) return null;
  const values = sql.join(
    delivered.map((event) => sql`(${event.id}::uuid, ${event.organizationId}::uuid, ${eventName(event)})`),
    sql`, `,
  );
  return sql`
    insert into ${webhookDeliveries} (id, organization_id, webhook_id, event_id)
    select gen_random_uuid(), w.organization_id, w.id, v.event_id
    from (values ${values}) as v(event_id, organization_id, name)
    join ${webhooks} w on w.organization_id = v.organization_id
    where w.state = 'enabled' and w.enabled_events @> jsonb_build_array(v.name)`;
}

/**
 * The same rule over a relation of events (EventRelationHook: fixed text, planned once by the
 * statements that use it). test_fire matches its webhook by the webhook's prn, exactly what
 * writeOutboxRows resolves the event's resource_prn to.
 */
export function outboxFromRelation(relation: string): string {
  return `insert into webhook_deliveries (id, organization_id, webhook_id, event_id)
    select gen_random_uuid(), w.organization_id, w.id, e.id
    from ${relation} e join webhooks w on w.organization_id = e.organization_id
    where case e.type || '.' || e.subtype
      when 'webhook.request_failed' then false
      when 'webhook.test_fire' then e.resource_prn = 'prn:1:' || w.organization_id || ':webhook:' || w.id
      else w.state = 'enabled' and w.enabled_events @> jsonb_build_array(e.type || '.' || e.subtype) end`;
}

// Registered once, when the webhooks context is loaded; recordEvent runs it in every event's transaction.
onEventRecorded(writeOutboxRows, outboxStatement, outboxFromRelation);
