/**
 * The read behind GET /events/stream: the organization's events after an id, ascending by id, with
 * the filters of GET /events. Ordered by id (not inserted_at): ids are time-ordered (event-ids.ts)
 * and the primary key's index gives the range without a sort.
 */
import { and, asc, gt, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { eventFilterConditions, type EventFilterFields } from './filters';
import { events } from './schema';
import type { EventRow } from './service';

export type StreamFilters = EventFilterFields;

/** Rows one read returns at most; a full read is followed at once by the next. */
export const STREAM_READ_LIMIT = 500;

/** Checks the filters once (a 400 before the stream opens) and answers the WHERE parts they add. */
export function streamConditions(organizationId: string, filters: StreamFilters): SQL[] {
  return eventFilterConditions(organizationId, filters);
}

export async function eventsAfter(db: Executor, conditions: SQL[], afterId: string, limit = STREAM_READ_LIMIT): Promise<EventRow[]> {
  return db
    .select()
    .from(events)
    .where(and(...conditions, gt(events.id, afterId)))
    .orderBy(asc(events.id))
    .limit(limit);
}
