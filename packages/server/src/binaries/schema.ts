import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { artifactVersions } from '../artifacts/schema';
import { id, insertedAt, organizationId, updatedAt } from '../db/columns';
import { signingKeys } from '../signing-keys/schema';

export const BINARY_STATES = ['uploadable', 'hashable', 'hashing', 'signable', 'signed', 'destroyed'] as const;
export type BinaryState = (typeof BINARY_STATES)[number];

export const binaries = pgTable(
  'binaries',
  {
    id: id(),
    organizationId: organizationId(),
    artifactVersionId: uuid('artifact_version_id').notNull().references(() => artifactVersions.id),
    target: text('target').notNull(),
    /** Declared by the client: lowercase hex SHA-256 of the whole binary. */
    hash: text('hash').notNull(),
    /** Declared size in bytes (up to 53,687,091,200,000, hence bigint). */
    size: bigint('size', { mode: 'number' }).notNull(),
    description: text('description'),
    customMetadata: jsonb('custom_metadata').$type<Record<string, unknown>>(),
    state: text('state').$type<BinaryState>().notNull().default('uploadable'),
    /** Bumped on every reset to uploadable, so stale part uploads of an earlier attempt are refused. */
    revision: integer('revision').notNull().default(1),
    /** Why the last hashing attempt sent the binary back to hashable. */
    hashError: text('hash_error'),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // One live binary per (artifact version, target); destroyed ones keep their record.
    uniqueIndex('binaries_version_target_live').on(t.artifactVersionId, t.target).where(sql`state <> 'destroyed'`),
    index('binaries_org_inserted').on(t.organizationId, t.insertedAt, t.id),
  ],
);

export const PART_STATES = ['uploadable', 'invalid_size', 'invalid_hash', 'valid'] as const;
export type PartState = (typeof PART_STATES)[number];

/**
 * One uploaded part of a binary (index 1..10,000). Re-putting an index replaces the row, and
 * with it the id its bytes are stored under, so an upload still running for the old row can
 * never land on the new one.
 */
export const binaryParts = pgTable(
  'binary_parts',
  {
    id: id(),
    organizationId: organizationId(),
    binaryId: uuid('binary_id').notNull().references(() => binaries.id, { onDelete: 'cascade' }),
    index: integer('index').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    hash: text('hash').notNull(),
    expectedBinarySize: bigint('expected_binary_size', { mode: 'number' }).notNull(),
    state: text('state').$type<PartState>().notNull().default('uploadable'),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('binary_parts_binary_index').on(t.binaryId, t.index)],
);

/** An Ed25519 signature (lowercase hex) by one of the organization's signing keys over the binary's hash. */
export const binarySignatures = pgTable(
  'binary_signatures',
  {
    id: id(),
    organizationId: organizationId(),
    binaryId: uuid('binary_id').notNull().references(() => binaries.id, { onDelete: 'cascade' }),
    // A deleted signing key takes its signatures with it: they can no longer be checked.
    signingKeyId: uuid('signing_key_id').notNull().references(() => signingKeys.id, { onDelete: 'cascade' }),
    signature: text('signature').notNull(),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('binary_signatures_binary_key').on(t.binaryId, t.signingKeyId),
    index('binary_signatures_org_inserted').on(t.organizationId, t.insertedAt, t.id),
  ],
);
