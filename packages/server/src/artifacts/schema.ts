import { index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, insertedAt, organizationId, updatedAt } from '../db/columns';

export const artifacts = pgTable(
  'artifacts',
  {
    id: id(),
    organizationId: organizationId(),
    name: text('name').notNull(),
    description: text('description'),
    customMetadata: jsonb('custom_metadata').$type<Record<string, unknown>>(),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('artifacts_org_inserted').on(t.organizationId, t.insertedAt, t.id)],
);

export const artifactVersions = pgTable(
  'artifact_versions',
  {
    id: id(),
    organizationId: organizationId(),
    artifactId: uuid('artifact_id').notNull().references(() => artifacts.id),
    version: text('version').notNull(),
    description: text('description'),
    customMetadata: jsonb('custom_metadata').$type<Record<string, unknown>>(),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('artifact_versions_artifact_version_unique').on(t.artifactId, t.version),
    index('artifact_versions_org_inserted').on(t.organizationId, t.insertedAt, t.id),
  ],
);
