import { index, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { artifactVersions } from '../artifacts/schema';
import { id, insertedAt, organizationId, updatedAt } from '../db/columns';

/** A bundle is an immutable, ordered set of artifact versions (only its name may change). */
export const bundles = pgTable(
  'bundles',
  {
    id: id(),
    organizationId: organizationId(),
    name: text('name'),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('bundles_org_inserted').on(t.organizationId, t.insertedAt, t.id)],
);

export const bundleArtifactVersions = pgTable(
  'bundle_artifact_versions',
  {
    bundleId: uuid('bundle_id').notNull().references(() => bundles.id, { onDelete: 'cascade' }),
    artifactVersionId: uuid('artifact_version_id').notNull().references(() => artifactVersions.id),
    /** Position in the bundle, from 0. */
    index: integer('index').notNull(),
  },
  (t) => [primaryKey({ columns: [t.bundleId, t.index] }), index('bundle_artifact_versions_version').on(t.artifactVersionId)],
);
