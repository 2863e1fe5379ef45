import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import type { MaintenanceWindow } from '../updates/core/window-rule';
import { id, insertedAt, organizationId, updatedAt } from '../db/columns';
import { products } from '../products/schema';

export const cohorts = pgTable(
  'cohorts',
  {
    id: id(),
    organizationId: organizationId(),
    productId: uuid('product_id').notNull().references(() => products.id),
    name: text('name').notNull(),
    description: text('description'),
    /** Weekly windows its releases are offered in (rollouts/window-rule.ts); null = always. */
    maintenanceWindows: jsonb('maintenance_windows').$type<MaintenanceWindow[]>(),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('cohorts_org_inserted').on(t.organizationId, t.insertedAt, t.id)],
);
