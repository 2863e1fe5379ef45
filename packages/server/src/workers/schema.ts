import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { id, insertedAt, timestamptz } from '../db/columns';

/**
 * Durable background jobs (binary hashing, tunnel expiry...). A job is claimed by setting a lease
 * (`locked_until`); a worker that dies simply lets its lease run out and another takes the job.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: id(),
    kind: text('kind').notNull(),
    /** Optional identity: a second enqueue with the same key while one is pending is a no-op. */
    key: text('key'),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    runAt: timestamptz('run_at').notNull().defaultNow(),
    lockedUntil: timestamptz('locked_until'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    insertedAt: insertedAt(),
  },
  (t) => [index('jobs_due').on(t.runAt), uniqueIndex('jobs_key_unique').on(t.key)],
);
