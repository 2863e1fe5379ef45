/**
 * The transactional outbox: when any context records an event, the same transaction writes one
 * pending delivery per webhook that should receive it, so a delivery exists exactly when its
 * event committed. Rules:
 *   - webhook.request_failed is never delivered (a failing receiver would feed itself);
 *   - webhook.test_fire goes only to the webhook it tests (its resource_prn);
 *   - every other event goes to each enabled webhook of the organization subscribed to it.
 */
import { onEventRecorded, type EventRow } from '../events/service';

export function eventName(event: Pick<EventRow, 'type' | 'subtype'>): string {
  return `${event.type}.${event.subtype}`;
}

/**
 * The rule over a relation of events (EventRelationHook: fixed text, planned once by the
 * statements that use it). test_fire matches its webhook by the event's resource_prn.
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
onEventRecorded(outboxFromRelation);
