/**
 * The events store. Every context records its events through `recordEvent`, inside the same
 * transaction as the change it describes, so an event exists exactly when its change does.
 * (Webhook deliveries hook in here too: they are written in that same transaction.)
 */
import { randomUUID } from 'node:crypto';
import { and, eq, gte, lt, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { parameterError } from '../http/errors';
import { resourcePrn } from '../http/prn';
import { parseDateTime, toRfc3339 } from '../http/time';
import { events, type EventType } from './schema';

export interface NewEvent {
  organizationId: string;
  type: EventType;
  subtype: string;
  actorPrn: string | null;
  resourcePrn: string | null;
  data: Record<string, unknown>;
}

export type EventRow = typeof events.$inferSelect;

/** Listeners that must write in the event's own transaction (webhook outbox rows). */
export type EventTransactionHook = (tx: Executor, event: EventRow) => Promise<void>;
const transactionHooks: EventTransactionHook[] = [];
export function onEventRecorded(hook: EventTransactionHook): void {
  transactionHooks.push(hook);
}

export async function recordEvent(tx: Executor, event: NewEvent): Promise<EventRow> {
  const [row] = await tx
    .insert(events)
    .values({ id: randomUUID(), ...event })
    .returning();
  for (const hook of transactionHooks) await hook(tx, row);
  return row;
}

/** The envelope of api-contract.md section 6, as webhooks deliver it. */
export function eventEnvelope(row: EventRow) {
  return {
    version: 1 as const,
    prn: resourcePrn(row.organizationId, 'event', row.id),
    type: row.type,
    inserted_at: toRfc3339(row.insertedAt)!,
    data: { type: row.subtype, data: row.data },
  };
}

/** What GET /events lists: the envelope plus who did it and to what. */
export function eventToWire(row: EventRow) {
  return { ...eventEnvelope(row), actor_prn: row.actorPrn, resource_prn: row.resourcePrn };
}

export interface EventFilters extends ListQuery {
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

export async function listEvents(db: Executor, organizationId: string, filters: EventFilters) {
  const page = pageRequest(filters);
  const before = timeFilter('inserted_at_lt', filters.inserted_at_lt);
  const since = timeFilter('inserted_at_gte', filters.inserted_at_gte);
  const { where, orderBy } = keyset(events, page);
  const conditions: (SQL | undefined)[] = [
    eq(events.organizationId, organizationId),
    where,
    before ? lt(events.insertedAt, before) : undefined,
    since ? gte(events.insertedAt, since) : undefined,
    filters.actor_prn ? eq(events.actorPrn, filters.actor_prn) : undefined,
    filters.resource_prn ? eq(events.resourcePrn, filters.resource_prn) : undefined,
    filters.type ? eq(events.type, filters.type as EventType) : undefined,
    filters.subtype ? eq(events.subtype, filters.subtype) : undefined,
  ];
  const rows = await db
    .select()
    .from(events)
    .where(combine(...conditions) ?? and())
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows, page);
}
