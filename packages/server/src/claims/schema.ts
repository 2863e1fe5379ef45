import { bigserial, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { cohorts } from '../cohorts/schema';
import { id, insertedAt, organizationId, timestamptz, updatedAt } from '../db/columns';
import { devices } from '../devices/schema';
import { products } from '../products/schema';

/**
 * A claim token: a secret shown once (only its SHA-256 is kept) that lets a device with a fresh
 * key enrol itself, at most `max_uses` times before `expires_at`, into the product, cohort and
 * tags given here (guides/trust/claim-tokens.md).
 */
export const claimTokens = pgTable(
  'claim_tokens',
  {
    id: id(),
    organizationId: organizationId(),
    name: text('name'),
    secretHash: text('secret_hash').notNull(),
    maxUses: integer('max_uses').notNull(),
    uses: integer('uses').notNull().default(0),
    expiresAt: timestamptz('expires_at').notNull(),
    revokedAt: timestamptz('revoked_at'),
    productId: uuid('product_id').notNull().references(() => products.id, { onDelete: 'cascade' }),
    cohortId: uuid('cohort_id').references(() => cohorts.id, { onDelete: 'set null' }),
    tags: jsonb('tags').$type<string[] | null>(),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('claim_tokens_secret_hash').on(t.secretHash), index('claim_tokens_org_inserted').on(t.organizationId, t.insertedAt, t.id)],
);

/** The organization's claims CA: the server's own key (sealed) that signs claimed devices' certificates. */
export const claimAuthorities = pgTable('claim_authorities', {
  organizationId: uuid('organization_id').primaryKey(),
  caCertificateId: uuid('ca_certificate_id').notNull(),
  certificatePem: text('certificate_pem').notNull(),
  sealedKey: text('sealed_key').notNull(),
  insertedAt: insertedAt(),
});

/** A claim for an existing identifier with a key the device did not have: an admin decides. */
export const deviceReclaims = pgTable(
  'device_reclaims',
  {
    id: id(),
    organizationId: organizationId(),
    deviceId: uuid('device_id').notNull().references(() => devices.id, { onDelete: 'cascade' }),
    claimTokenId: uuid('claim_token_id').references(() => claimTokens.id, { onDelete: 'set null' }),
    /** SPKI PEM of the new key. */
    publicKeyPem: text('public_key_pem').notNull(),
    /** Lowercase hex SHA-256 of the SPKI DER. */
    publicKeyFingerprint: text('public_key_fingerprint').notNull(),
    state: text('state').$type<'pending' | 'approved' | 'rejected'>().notNull().default('pending'),
    /** The certificate issued on approval (PEM), handed to the device at its next claim. */
    certificatePem: text('certificate_pem'),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('device_reclaims_device_key').on(t.deviceId, t.publicKeyFingerprint),
    index('device_reclaims_org_inserted').on(t.organizationId, t.insertedAt, t.id),
  ],
);

/**
 * Claims refused (or in flight) per client address in the last window, shared by every server
 * process on the database so the limit is one limit (failure-limiter.ts). Rows older than the
 * window are deleted as new ones come.
 */
export const claimFailures = pgTable(
  'claim_failures',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    address: text('address').notNull(),
    failedAt: timestamptz('failed_at').notNull().defaultNow(),
  },
  (t) => [index('claim_failures_address_at').on(t.address, t.failedAt), index('claim_failures_at').on(t.failedAt)],
);
