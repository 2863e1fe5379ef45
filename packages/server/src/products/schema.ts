import { boolean, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { id, insertedAt, organizationId, updatedAt } from '../db/columns';

export const products = pgTable(
  'products',
  {
    id: id(),
    organizationId: organizationId(),
    name: text('name').notNull(),
    archived: boolean('archived').notNull().default(false),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('products_org_name_unique').on(t.organizationId, t.name), index('products_org_inserted').on(t.organizationId, t.insertedAt, t.id)],
);
