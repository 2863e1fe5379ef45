/**
 * The filters GET /events and GET /events/stream share: a time range on inserted_at, who did it,
 * to what, and the event's type and subtype. Checked here (a 400 naming the parameter) so both
 * reads refuse the same input the same way.
 */
import { and, eq, gte, lt, or, sql, type SQL } from 'drizzle-orm';
import { parameterError } from '../http/errors';
import { parseDateTime } from '../core/time';
import { events, type EventType } from './schema';

export interface EventFilterFields {
  inserted_at_lt?: string;
  inserted_at_gte?: string;
  actor_prn?: string;
  resource_prn?: string;
  type?: string;
  subtype?: string;
}

function timeFilter(name: 'inserted_at_lt' | 'inserted_at_gte', raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = parseDateTime(raw);
  if (!value) throw parameterError(name, 'invalid_date_time');
  return value;
}

/** Who did it: the actor, or for an audit event also the API key a user acted with (its data's api_key_prn). */
function actorCondition(prn: string): SQL {
  return or(eq(events.actorPrn, prn), and(eq(events.type, 'audit'), sql`${events.data}->>'api_key_prn' = ${prn}`))!;
}

/** The WHERE parts for the organization's events matching the filters; throws a 400 on a bad time. */
export function eventFilterConditions(organizationId: string, filters: EventFilterFields): SQL[] {
  const before = timeFilter('inserted_at_lt', filters.inserted_at_lt);
  const since = timeFilter('inserted_at_gte', filters.inserted_at_gte);
  const conditions: (SQL | undefined)[] = [
    eq(events.organizationId, organizationId),
    before ? lt(events.insertedAt, before) : undefined,
    since ? gte(events.insertedAt, since) : undefined,
    filters.actor_prn ? actorCondition(filters.actor_prn) : undefined,
    filters.resource_prn ? eq(events.resourcePrn, filters.resource_prn) : undefined,
    filters.type ? eq(events.type, filters.type as EventType) : undefined,
    filters.subtype ? eq(events.subtype, filters.subtype) : undefined,
  ];
  return conditions.filter((c): c is SQL => c !== undefined);
}
