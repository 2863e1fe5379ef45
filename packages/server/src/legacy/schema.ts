/**
 * The legacy API's tables (docs: canopy-core/reference/legacy-api): fwup firmware archives,
 * deployments of them, update attempts per device and deployment, and the firmware each legacy
 * device last reported (its x-canopy-* headers), kept beside the devices table rather than in it.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, insertedAt, organizationId, timestamptz, updatedAt } from '../db/columns';
import { devices } from '../devices/schema';
import { products } from '../products/schema';

export const firmwares = pgTable(
  'firmwares',
  {
    id: id(),
    organizationId: organizationId(),
    productId: uuid('product_id').notNull().references(() => products.id),
    /** The archive's meta-uuid (lower case); unique within the organization. */
    uuid: text('uuid').notNull(),
    version: text('version').notNull(),
    platform: text('platform'),
    architecture: text('architecture'),
    author: text('author'),
    description: text('description'),
    vcsIdentifier: text('vcs_identifier'),
    misc: text('misc'),
    fwupVersion: text('fwup_version'),
    size: bigint('size', { mode: 'number' }).notNull(),
    /** Lowercase hex SHA-256 of the archive, computed while it streamed in. */
    sha256: text('sha256').notNull(),
    blobKey: text('blob_key').notNull(),
    /** The upload's `ttl`: deleted this long after upload while no deployment uses it. Null: kept. */
    ttlSeconds: integer('ttl_seconds'),
    expiresAt: timestamptz('expires_at'),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('firmwares_org_uuid_unique').on(t.organizationId, t.uuid),
    index('firmwares_product_inserted').on(t.productId, t.insertedAt, t.id),
    index('firmwares_org_inserted').on(t.organizationId, t.insertedAt, t.id),
    index('firmwares_expires').on(t.expiresAt).where(sql`${t.expiresAt} is not null`),
  ],
);

export const deployments = pgTable(
  'deployments',
  {
    id: id(),
    organizationId: organizationId(),
    productId: uuid('product_id').notNull().references(() => products.id),
    /** Unique within the product (the org-scoped paths name deployments by it). */
    name: text('name').notNull(),
    firmwareId: uuid('firmware_id').notNull().references(() => firmwares.id),
    conditionsVersion: text('conditions_version'),
    conditionsTags: jsonb('conditions_tags').$type<string[]>().notNull().default([]),
    isActive: boolean('is_active').notNull().default(false),
    deltaUpdatable: boolean('delta_updatable').notNull().default(false),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('deployments_product_name_unique').on(t.productId, t.name),
    index('deployments_org_inserted').on(t.organizationId, t.insertedAt, t.id),
    index('deployments_firmware').on(t.firmwareId),
  ],
);

export const deploymentAttempts = pgTable(
  'deployment_attempts',
  {
    deploymentId: uuid('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    attempts: integer('attempts').notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.deploymentId, t.deviceId] }), index('deployment_attempts_device').on(t.deviceId)],
);

export const legacyDeviceFirmware = pgTable('legacy_device_firmware', {
  deviceId: uuid('device_id')
    .primaryKey()
    .references(() => devices.id, { onDelete: 'cascade' }),
  organizationId: organizationId(),
  firmwareUuid: text('firmware_uuid').notNull(),
  /** x-canopy-version when sent, else the version of the firmware with that uuid, else null. */
  version: text('version'),
  lastCommunicationAt: timestamptz('last_communication_at').notNull().defaultNow(),
});
