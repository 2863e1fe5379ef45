import { index, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { bundles } from '../bundles/schema';
import { id, insertedAt, organizationId, timestamptz, updatedAt } from '../db/columns';
import { devices } from '../devices/schema';

/** A bundle pinned to chosen devices for a window [starts_at, ends_at); it beats any release. */
export const bundleOverrides = pgTable(
  'bundle_overrides',
  {
    id: id(),
    organizationId: organizationId(),
    bundleId: uuid('bundle_id').notNull().references(() => bundles.id),
    name: text('name').notNull(),
    description: text('description'),
    startsAt: timestamptz('starts_at').notNull(),
    /** Null: the override never ends. */
    endsAt: timestamptz('ends_at'),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('bundle_overrides_org_inserted').on(t.organizationId, t.insertedAt, t.id),
    // Deleting a bundle asks whether an override still uses it (bundles/in-use.ts).
    index('bundle_overrides_bundle').on(t.bundleId),
  ],
);

export const bundleOverrideDevices = pgTable(
  'bundle_override_devices',
  {
    bundleOverrideId: uuid('bundle_override_id')
      .notNull()
      .references(() => bundleOverrides.id, { onDelete: 'cascade' }),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    organizationId: organizationId(),
    /** Also the keyset sort key of the devices list. */
    insertedAt: insertedAt(),
  },
  (t) => [primaryKey({ columns: [t.bundleOverrideId, t.deviceId] }), index('bundle_override_devices_device').on(t.deviceId)],
);
