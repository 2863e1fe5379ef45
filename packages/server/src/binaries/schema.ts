import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { artifactVersions } from '../artifacts/schema';
import { id, insertedAt, organizationId, updatedAt } from '../db/columns';

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
