import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, insertedAt, organizationId, timestamptz } from '../db/columns';
import { devices } from '../devices/schema';

/**
 * One-time web console shell URLs. Only a SHA-256 of the URL's token is kept, so a database
 * read does not hand out working URLs; `consumed_at` is set by the single use that wins.
 */
export const webConsoleShells = pgTable(
  'web_console_shells',
  {
    id: id(),
    organizationId: organizationId(),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    consumedAt: timestamptz('consumed_at'),
    createdByPrn: text('created_by_prn'),
    insertedAt: insertedAt(),
  },
  (t) => [uniqueIndex('web_console_shells_token_hash').on(t.tokenHash), index('web_console_shells_org_inserted').on(t.organizationId, t.insertedAt, t.id)],
);
