/**
 * The events store. Every context records its events through `recordEvent`, inside the same
 * transaction as the change it describes, so an event exists exactly when its change does.
 * (Webhook deliveries hook in here too: they are written in that same transaction.)
 */
import { and, getTableColumns, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { prepared, type Prepared } from '../read-path/prepared-queries';
import { resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import { eventFilterConditions, type EventFilterFields } from './filters';
import { events, type EventType } from './schema';
import { JSON_ELEMENTS } from '../db/array-parameters';
import { newEventId } from './event-ids';
import { assertCatalogued, CHECK_EVENTS } from './catalogue';

export interface NewEvent {
  organizationId: string;
  type: EventType;
  subtype: string;
  actorPrn: string | null;
  resourcePrn: string | null;
  data: Record<string, unknown>;
}

export type EventRow = typeof events.$inferSelect;

/**
 * A listener that writes in the event's own statement (the webhook outbox), as the fixed text of
 * one data-modifying statement over a relation of events about to be inserted by the statement it
 * joins: `relation` names a CTE with the columns of `EVENT_RELATION_COLUMNS`. Its text depends on
 * nothing but `relation`, so every statement built from it is the same text and PostgreSQL keeps
 * its plan. Recording one event and a grouped check's hundred use this one form.
 */
export type EventRelationHook = (relation: string) => string;

/** The columns of the relation an EventRelationHook reads (data as jsonb). */
export const EVENT_RELATION_COLUMNS = ['id', 'organization_id', 'type', 'subtype', 'actor_prn', 'resource_prn', 'data'] as const;

const relationHooks: EventRelationHook[] = [];
export function onEventRecorded(hook: EventRelationHook): void {
  relationHooks.push(hook);
}

/** Every hook's statement over the events of `relation`, as the texts of data-modifying CTEs. */
export function eventRelationStatements(relation: string): string[] {
  return relationHooks.map((hook) => hook(relation));
}

/** The parameter types of EVENT_RELATION_COLUMNS as eventRelationValues gives them (db/array-parameters.ts: the data as one JSON array). */
export const EVENT_RELATION_TYPES = ['uuid', 'uuid', 'text', 'text', 'text', 'text', JSON_ELEMENTS] as const;

/**
 * The values of EVENT_RELATION_COLUMNS for `list`, one array per column, each event with a new id.
 * Events of one statement share their inserted_at, and lists order them by (inserted_at, id): ids
 * made in the order given (they only ever increase) keep them in the order they happened.
 */
export function eventRelationValues(list: readonly NewEvent[]): unknown[][] {
  if (CHECK_EVENTS) list.forEach(assertCatalogued);
  return [
    list.map(() => newEventId()),
    list.map((e) => e.organizationId),
    list.map((e) => e.type),
    list.map((e) => e.subtype),
    list.map((e) => e.actorPrn),
    list.map((e) => e.resourcePrn),
    list.map((e) => e.data),
  ];
}

/** The CTEs (`recorded_events`, `hook0`, ...) that insert the events of `relation` (EVENT_RELATION_COLUMNS) and run every hook over them. */
export function recordingCtes(relation: string): string[] {
  const columns = EVENT_RELATION_COLUMNS.join(', ');
  return [
    `recorded_events as (insert into events (${columns}) select ${columns} from ${relation})`,
    ...eventRelationStatements(relation).map((text, i) => `hook${i} as (${text})`),
  ];
}

/**
 * One event and its hooks' writes as ONE prepared statement: the event is a one-row relation the
 * insert and every hook read (one snapshot, foreign keys checked at the statement's end), built
 * once per executor (a named statement: PostgreSQL parses it once per connection).
 */
export async function recordEvent(tx: Executor, event: NewEvent): Promise<EventRow> {
  if (CHECK_EVENTS) assertCatalogued(event);
  const statement = prepared(tx, 'record_event', () => {
    const placeholders = ['id', 'organizationId', 'type', 'subtype', 'actorPrn', 'resourcePrn', 'data'].map((name) => sql.placeholder(name));
    const casts = ['uuid', 'uuid', 'text', 'text', 'text', 'text', 'jsonb'];
    const row = sql.join(placeholders.map((value, i) => sql`${value}::${sql.raw(casts[i])}`), sql`, `);
    const input = tx.$with('event_input', {}).as(sql`select * from (values (${row})) as v(${sql.raw(EVENT_RELATION_COLUMNS.join(', '))})`);
    // insert ... select fills the table's columns in order: the relation's, then inserted_at.
    const columns = Object.values(getTableColumns(events)).map((column) => column.name);
    if (columns.join() !== [...EVENT_RELATION_COLUMNS, 'inserted_at'].join()) throw new Error(`recordEvent: events has columns ${columns.join()}`);
    const hooks = eventRelationStatements('event_input').map((text, i) => tx.$with(`hook${i}`, {}).as(sql.raw(text)));
    return tx
      .with(input, ...hooks)
      .insert(events)
      .select(sql`select ${sql.raw(EVENT_RELATION_COLUMNS.join(', '))}, now() from event_input`)
      .returning();
  });
  const [row] = (await statement.execute({ id: newEventId(), ...event, data: JSON.stringify(event.data) })) as EventRow[];
  return row;
}

/** The event envelope (site/docs/canopy-core/reference/integration-management/events.mdx), as webhooks deliver it. */
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

export interface EventFilters extends ListQuery, EventFilterFields {}

export async function listEvents(db: Executor, organizationId: string, filters: EventFilters) {
  const page = pageRequest(filters);
  const filterConditions = eventFilterConditions(organizationId, filters);
  const { where, orderBy } = keyset(events, page);
  const rows = await db
    .select()
    .from(events)
    .where(combine(...filterConditions, where) ?? and())
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows, page);
}
