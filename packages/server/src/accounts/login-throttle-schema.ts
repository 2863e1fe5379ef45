import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz } from '../db/columns';

/**
 * Failed log-ins counted per account and per client address (login-throttle.ts). In the database,
 * not in memory, so every server process on one database sees the same counts and locks; an
 * attempt is counted before its password is checked, under the row's lock.
 */
export const loginThrottles = pgTable('login_throttles', {
  /** `user:<user id>`, `login:<lowercased identifier naming no user>` or `address:<client ip>`. */
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  lastFailureAt: timestamptz('last_failure_at').notNull(),
  lockedUntil: timestamptz('locked_until'),
});
