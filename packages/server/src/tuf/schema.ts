import { index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { id, insertedAt, organizationId, timestamptz } from '../db/columns';
import { devices } from '../devices/schema';

/** The TUF roles the server signs itself (snapshot, timestamp); their private keys sealed by the secret box. */
export const tufOnlineKeys = pgTable(
  'tuf_online_keys',
  {
    id: id(),
    organizationId: organizationId(),
    role: text('role').$type<'snapshot' | 'timestamp'>().notNull(),
    keyid: text('keyid').notNull(),
    /** The TUF key object (keytype, scheme, keyval) as it goes into root.json. */
    publicKey: jsonb('public_key').$type<Record<string, unknown>>().notNull(),
    sealedPrivateKey: text('sealed_private_key').notNull(),
    insertedAt: insertedAt(),
  },
  (t) => [index('tuf_online_keys_org').on(t.organizationId, t.role, t.insertedAt)],
);

/** Every version of every role's metadata of an organization's repository, as served. */
export const tufMetadata = pgTable(
  'tuf_metadata',
  {
    organizationId: organizationId(),
    /** root, targets, snapshot, timestamp, or a delegated role's name. */
    role: text('role').notNull(),
    version: integer('version').notNull(),
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    insertedAt: insertedAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.role, t.version] })],
);

/** A proposed next root collecting signatures until both thresholds are met (then committed). */
export const tufRootProposals = pgTable(
  'tuf_root_proposals',
  {
    organizationId: organizationId(),
    version: integer('version').notNull(),
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    insertedAt: insertedAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.version] })],
);

/** The root version each device last said it trusts (it asks for `{n+1}.root.json`). */
export const tufDeviceRoots = pgTable(
  'tuf_device_roots',
  {
    deviceId: uuid('device_id')
      .primaryKey()
      .references(() => devices.id, { onDelete: 'cascade' }),
    organizationId: organizationId(),
    rootVersion: integer('root_version').notNull(),
    reportedAt: timestamptz('reported_at').notNull().defaultNow(),
  },
  (t) => [index('tuf_device_roots_org').on(t.organizationId, t.rootVersion)],
);
