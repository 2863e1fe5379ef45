import { index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, insertedAt, organizationId, timestamptz, updatedAt } from '../db/columns';
import { devices } from '../devices/schema';

/**
 * Just-in-time provisioning settings of a CA, stored as given (cohort as an id). A device whose
 * certificate chains to this CA and is not registered yet is created from them.
 */
export interface JitpSettings {
  description: string;
  tags: string[];
  productName: string;
  cohortId: string | null;
  target: string | null;
}

/** Codes handed out by POST /ca_certificates/verification_codes: valid one week, used once. */
export const caVerificationCodes = pgTable(
  'ca_verification_codes',
  {
    id: id(),
    organizationId: organizationId(),
    code: text('code').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
    insertedAt: insertedAt(),
  },
  (t) => [uniqueIndex('ca_verification_codes_code_unique').on(t.code), index('ca_verification_codes_org').on(t.organizationId)],
);

export const caCertificates = pgTable(
  'ca_certificates',
  {
    id: id(),
    organizationId: organizationId(),
    /** The certificate as normalised PEM. */
    certificate: text('certificate').notNull(),
    /** Decimal, as the API shows it. */
    serial: text('serial').notNull(),
    /** Upper-case hex SHA-256 of the DER. One organization owns a CA certificate. */
    fingerprint: text('fingerprint').notNull(),
    /** Upper-case hex; how a device certificate's authority key identifier finds its CA. */
    subjectKeyIdentifier: text('subject_key_identifier'),
    /** RFC 4514 subject: the fallback lookup for certificates without key identifiers. */
    subjectName: text('subject_name').notNull(),
    description: text('description'),
    notBefore: timestamptz('not_before').notNull(),
    notAfter: timestamptz('not_after').notNull(),
    jitp: jsonb('jitp').$type<JitpSettings>(),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('ca_certificates_fingerprint_unique').on(t.fingerprint),
    index('ca_certificates_ski').on(t.subjectKeyIdentifier),
    index('ca_certificates_subject_name').on(t.subjectName),
    index('ca_certificates_org_inserted').on(t.organizationId, t.insertedAt, t.id),
  ],
);

/** Certificates a device may authenticate with; several may be live at once (rotation). */
export const deviceCertificates = pgTable(
  'device_certificates',
  {
    id: id(),
    organizationId: organizationId(),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    certificate: text('certificate').notNull(),
    serial: text('serial').notNull(),
    /** Upper-case hex SHA-256 of the DER: what the device API looks the device up by. */
    fingerprint: text('fingerprint').notNull(),
    authorityKeyIdentifier: text('authority_key_identifier'),
    notBefore: timestamptz('not_before').notNull(),
    notAfter: timestamptz('not_after').notNull(),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Global, not per organization: a certificate identifies exactly one device anywhere.
    uniqueIndex('device_certificates_fingerprint_unique').on(t.fingerprint),
    index('device_certificates_device').on(t.deviceId),
    index('device_certificates_org_inserted').on(t.organizationId, t.insertedAt, t.id),
  ],
);
