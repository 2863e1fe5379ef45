import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { bundles } from '../bundles/schema';
import { id, insertedAt, organizationId, updatedAt } from '../db/columns';
import { signingKeys } from '../signing-keys/schema';

/**
 * An Ed25519 signature (lowercase hex) by one of the organization's signing keys over the
 * canonical message of a bundle's binaries for one target (`''`: every target), as
 * @canopy/sdk's bundle-signing.ts writes it.
 */
export const bundleSignatures = pgTable(
  'bundle_signatures',
  {
    id: id(),
    organizationId: organizationId(),
    bundleId: uuid('bundle_id').notNull().references(() => bundles.id, { onDelete: 'cascade' }),
    // A deleted signing key takes its signatures with it, as for binary signatures.
    signingKeyId: uuid('signing_key_id').notNull().references(() => signingKeys.id, { onDelete: 'cascade' }),
    target: text('target').notNull().default(''),
    signature: text('signature').notNull(),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('bundle_signatures_bundle_key_target').on(t.bundleId, t.signingKeyId, t.target),
    index('bundle_signatures_org_inserted').on(t.organizationId, t.insertedAt, t.id),
  ],
);
