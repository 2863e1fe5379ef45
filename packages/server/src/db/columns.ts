/**
 * Column helpers every context's tables share, so ids, organization scoping and timestamps look
 * the same everywhere. Timestamps are kept as text (mode 'string') to preserve PostgreSQL's
 * microseconds, which the wire format shows and keyset cursors compare on.
 */
import { timestamp, uuid } from 'drizzle-orm/pg-core';

export const id = () => uuid('id').primaryKey();
export const organizationId = () => uuid('organization_id').notNull();
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'string', precision: 6 });
export const insertedAt = () => timestamptz('inserted_at').notNull().defaultNow();
export const updatedAt = () => timestamptz('updated_at').notNull().defaultNow();
