import { getTableColumns } from 'drizzle-orm';
import { boolean, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { cohorts } from '../cohorts/schema';
import { id, insertedAt, organizationId, timestamptz, updatedAt } from '../db/columns';
import { products } from '../products/schema';

export const devices = pgTable(
  'devices',
  {
    id: id(),
    organizationId: organizationId(),
    productId: uuid('product_id').notNull().references(() => products.id),
    cohortId: uuid('cohort_id').references(() => cohorts.id),
    identifier: text('identifier').notNull(),
    description: text('description'),
    quarantined: boolean('quarantined').notNull().default(false),
    /** Archived devices keep their history but may not authenticate (device_is_archived). */
    archived: boolean('archived').notNull().default(false),
    tags: text('tags').array(),
    target: text('target'),
    lastConnectedAt: timestamptz('last_connected_at'),
    // What the device last reported running; prns rather than foreign keys because a device may
    // report a release that was since deleted, and that must not block the delete.
    reportedBundlePrn: text('reported_bundle_prn'),
    reportedReleasePrn: text('reported_release_prn'),
    reportedReleaseVersion: text('reported_release_version'),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
    /**
     * The device's wire JSON text (the Device schema of routes.ts, byte for byte what the
     * response serialiser writes), kept by the database: the devices_wire_json trigger, generated
     * from the schema (wire-json-sql.ts), writes it on every insert and update, whatever the
     * writer, so read routes send it as it is. The default is only what drizzle's inserts leave
     * out; the trigger replaces it before the row is stored.
     */
    wireJson: text('wire_json').notNull().default(''),
  },
  (t) => [
    uniqueIndex('devices_org_identifier_unique').on(t.organizationId, t.identifier),
    index('devices_org_inserted').on(t.organizationId, t.insertedAt, t.id),
    index('devices_cohort').on(t.cohortId),
    index('devices_product').on(t.productId),
  ],
);

const { wireJson: _storedWireJson, ...deviceRowColumns } = getTableColumns(devices);
/**
 * Every column of a device but its stored wire JSON, for code that reads a device to work with it
 * (the device API on every request, updates, lookups): only the read routes send wire_json, and
 * reading its ~600 bytes along with each row elsewhere is waste.
 */
export const DEVICE_ROW_COLUMNS = deviceRowColumns;
export type DeviceRow = Omit<typeof devices.$inferSelect, 'wireJson'>;
