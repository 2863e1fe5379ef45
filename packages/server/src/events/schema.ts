import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import type { EventType } from '@canopy/sdk/event-catalogue';
import { id, insertedAt, organizationId } from '../db/columns';

export type { EventType };

export const events = pgTable(
  'events',
  {
    id: id(),
    organizationId: organizationId(),
    type: text('type').$type<EventType>().notNull(),
    subtype: text('subtype').notNull(),
    actorPrn: text('actor_prn'),
    resourcePrn: text('resource_prn'),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    insertedAt: insertedAt(),
  },
  (t) => [
    index('events_org_inserted').on(t.organizationId, t.insertedAt, t.id),
    index('events_org_resource').on(t.organizationId, t.resourcePrn),
  ],
);
