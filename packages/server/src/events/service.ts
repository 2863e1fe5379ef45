/**
 * The events store. Every context records its events through `recordEvent`, inside the same
 * transaction as the change it describes, so an event exists exactly when its change does.
 * (Webhook deliveries hook in here too: they are written in that same transaction.)
 */
import { and, sql, type SQL } from 'drizzle-orm';
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

/** Listeners that must write in the event's own transaction (webhook outbox rows). */
export type EventTransactionHook = (tx: Executor, event: EventRow) => Promise<void>;

/** An event whose id is chosen before it is inserted (the statement form of a hook, below). */
export type PendingEvent = NewEvent & { id: string };

/**
 * The same listener as one data-modifying statement over events about to be inserted by the
 * statement it joins (their ids are known): null when it has nothing to write, `undefined` when
 * it cannot express these events (the caller then falls back to recordEvent). It may decide by
 * an event's `type` and `subtype` only, and must put every other field into the SQL as a value:
 * recordEvent prepares the statement once per event name, handing placeholders for those fields.
 */
export type EventStatementHook = (events: readonly PendingEvent[]) => SQL | null | undefined;

/**
 * The same listener as the fixed text of one data-modifying statement over a relation of events
 * about to be inserted by the statement it joins: `relation` names a CTE with the columns of
 * `EVENT_RELATION_COLUMNS`. Its text depends on nothing but `relation`, so a statement built
 * from it is the same text every time and PostgreSQL can keep its plan (eventRelationStatements).
 */
export type EventRelationHook = (relation: string) => string;

/** The columns of the relation an EventRelationHook reads (data as jsonb). */
export const EVENT_RELATION_COLUMNS = ['id', 'organization_id', 'type', 'subtype', 'actor_prn', 'resource_prn', 'data'] as const;

const transactionHooks: { hook: EventTransactionHook; statement?: EventStatementHook; relation?: EventRelationHook }[] = [];
export function onEventRecorded(hook: EventTransactionHook, statement?: EventStatementHook, relation?: EventRelationHook): void {
  transactionHooks.push({ hook, statement, relation });
}

/**
 * Every hook's statement over the events of `relation` (EventRelationHook), as the texts of
 * data-modifying CTEs for the statement that inserts those events. Throws when a hook has no such
 * form: a caller that needs one statement cannot fall back to recording events one by one.
 */
export function eventRelationStatements(relation: string): string[] {
  return transactionHooks.map(({ relation: form }) => {
    if (!form) throw new Error('eventRelationStatements: an event hook has no relation form');
    return form(relation);
  });
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

export async function recordEvent(tx: Executor, event: NewEvent): Promise<EventRow> {
  if (CHECK_EVENTS) assertCatalogued(event);
  const id = newEventId();
  const oneStatement = preparedRecordEvent(tx, event);
  if (oneStatement) {
    const [row] = (await oneStatement.execute({ id, organizationId: event.organizationId, actorPrn: event.actorPrn, resourcePrn: event.resourcePrn, data: event.data })) as EventRow[];
    return row;
  }
  const [row] = await tx
    .insert(events)
    .values({ id, ...event })
    .returning();
  for (const { hook } of transactionHooks) await hook(tx, row);
  return row;
}

/**
 * recordEvent as ONE prepared statement, when every hook has a statement form for this event
 * name: the hooks' writes ride along as data-modifying CTEs of the insert (one snapshot, foreign
 * keys checked at the statement's end), so an event costs one round trip, and the statement is
 * built once per executor and event name (a named statement: PostgreSQL parses it once per
 * connection). The hooks see placeholders for everything but `type` and `subtype`.
 */
function preparedRecordEvent(tx: Executor, event: NewEvent): Prepared | null {
  const values = {
    id: sql.placeholder('id'),
    organizationId: sql.placeholder('organizationId'),
    type: event.type,
    subtype: event.subtype,
    actorPrn: sql.placeholder('actorPrn'),
    resourcePrn: sql.placeholder('resourcePrn'),
    data: sql.placeholder('data'),
  };
  const fragments = transactionHooks.map(({ statement }) => statement?.([values as unknown as PendingEvent]));
  if (fragments.some((fragment) => fragment === undefined)) return null;
  return prepared(tx, `record_event_${event.type}.${event.subtype}`, () => {
    const ctes = fragments.flatMap((fragment, i) => (fragment ? [tx.$with(`hook${i}`, {}).as(fragment)] : []));
    return tx
      .with(...ctes)
      .insert(events)
      .values(values)
      .returning();
  });
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
