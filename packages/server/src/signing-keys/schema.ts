import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { id, insertedAt, organizationId, updatedAt } from '../db/columns';

export const signingKeys = pgTable(
  'signing_keys',
  {
    id: id(),
    organizationId: organizationId(),
    name: text('name').notNull(),
    /** Standard base64 of the raw 32-byte Ed25519 public key (PEM input is normalised to this). */
    value: text('value').notNull(),
    /** Lowercase hex SHA-256 of the raw key. */
    keyid: text('keyid').notNull(),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('signing_keys_org_keyid_unique').on(t.organizationId, t.keyid), index('signing_keys_org_inserted').on(t.organizationId, t.insertedAt, t.id)],
);
