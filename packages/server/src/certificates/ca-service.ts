/**
 * CA certificates: registered with proof of possession
 * (site/docs/canopy-core/reference/device-management/ca-certificates.md), after which every device
 * certificate they issued can authenticate, and, with JITP settings, provision itself on first
 * contact.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { isUniqueViolation } from '../db/errors';
import type { Actor } from '../http/actor';
import { invalidField, notFound, validationError } from '../http/errors';
import { combine, keyset, pageRequest, toPage, type ListQuery } from '../http/pagination';
import { organizationPrn, resourceIdFromPrn, resourcePrn } from '../core/prn';
import { searchCondition, type SearchFields } from '../search/search';
import { toRfc3339 } from '../core/time';
import { timestampsOf } from '../http/wire-fields';
import { certificateFromField } from './certificate-field';
import { jitpToWire, resolveJitpSettings, type JitpInput } from './jitp';
import { checkProofOfPossession } from './proof-of-possession';
import { caCertificates } from './schema';
import { consumeVerificationCode, liveVerificationCodes } from './verification-codes';
import { verifiedChains } from './verified-chains';

export type CaCertificateRow = typeof caCertificates.$inferSelect;

export function caCertificateToWire(row: CaCertificateRow) {
  return {
    prn: resourcePrn(row.organizationId, 'ca_certificate', row.id),
    organization_prn: organizationPrn(row.organizationId),
    serial: row.serial,
    description: row.description,
    not_before: toRfc3339(row.notBefore),
    not_after: toRfc3339(row.notAfter),
    jitp: jitpToWire(row.organizationId, row.jitp),
    ...timestampsOf(row),
  };
}

export const CA_CERTIFICATE_SEARCH: SearchFields = {
  serial: { column: caCertificates.serial, type: 'string', operators: [':'] },
  description: { column: caCertificates.description, type: 'string', operators: [':', '-', '~'] },
  not_after: { column: caCertificates.notAfter, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
  inserted_at: { column: caCertificates.insertedAt, type: 'datetime', operators: [':', '<', '<=', '>', '>='] },
};

export interface NewCaCertificate {
  certificate: string;
  verification_certificate: string;
  description?: string | null;
  jitp?: JitpInput | null;
}

export async function registerCaCertificate(db: Database, actor: Actor, input: NewCaCertificate): Promise<CaCertificateRow> {
  const ca = certificateFromField('certificate', input.certificate);
  const verification = certificateFromField('verification_certificate', input.verification_certificate);
  try {
    return await db.transaction(async (tx) => {
      const codes = await liveVerificationCodes(tx, actor.organizationId);
      const proof = checkProofOfPossession({ ca, verification, verificationCodes: codes });
      if (!proof.ok) throw validationError(proof.failures.map(({ field, reason }) => ({ field, reason })));
      if (!(await consumeVerificationCode(tx, actor.organizationId, proof.matchedCode))) {
        throw invalidField('verification_certificate', 'verification_code_mismatch');
      }
      const jitp = input.jitp ? await resolveJitpSettings(tx, actor, input.jitp) : null;
      const summary = ca.summary;
      const [row] = await tx
        .insert(caCertificates)
        .values({
          id: randomUUID(),
          organizationId: actor.organizationId,
          certificate: ca.pem,
          serial: summary.serial,
          fingerprint: summary.fingerprintSha256,
          subjectKeyIdentifier: summary.subjectKeyIdentifier,
          subjectName: summary.subjectName,
          description: input.description ?? null,
          notBefore: summary.notBefore.toISOString(),
          notAfter: summary.notAfter.toISOString(),
          jitp,
        })
        .returning();
      return row;
    });
  } catch (error) {
    throw isUniqueViolation(error, 'ca_certificates_fingerprint_unique') ? invalidField('certificate', 'taken') : error;
  }
}

export async function getCaCertificate(db: Executor, actor: Actor, prn: string): Promise<CaCertificateRow> {
  const id = resourceIdFromPrn(prn, 'ca_certificate', actor.organizationId);
  const [row] = id
    ? await db.select().from(caCertificates).where(and(eq(caCertificates.id, id), eq(caCertificates.organizationId, actor.organizationId))).limit(1)
    : [];
  if (!row) throw notFound('ca_certificate', prn);
  return row;
}

export async function listCaCertificates(db: Executor, actor: Actor, query: ListQuery) {
  const page = pageRequest(query);
  const { where, orderBy } = keyset(caCertificates, page);
  const rows = await db
    .select()
    .from(caCertificates)
    .where(combine(eq(caCertificates.organizationId, actor.organizationId), where, searchCondition(query.search, CA_CERTIFICATE_SEARCH)))
    .orderBy(...orderBy)
    .limit(page.limit + 1);
  return toPage(rows, page);
}

export interface CaCertificateChanges {
  description?: string | null;
  /** null removes JITP: unknown devices of this CA are refused again (jitp_disabled). */
  jitp?: JitpInput | null;
}

/** PUT and PATCH alike: only the fields sent change; the certificate itself never does. */
export async function updateCaCertificate(db: Database, actor: Actor, prn: string, changes: CaCertificateChanges): Promise<CaCertificateRow> {
  return db.transaction(async (tx) => {
    const current = await getCaCertificate(tx, actor, prn);
    const set: Partial<typeof caCertificates.$inferInsert> = {};
    if (changes.description !== undefined) set.description = changes.description;
    if (changes.jitp !== undefined) set.jitp = changes.jitp === null ? null : await resolveJitpSettings(tx, actor, changes.jitp);
    if (Object.keys(set).length === 0) return current;
    const [row] = await tx
      .update(caCertificates)
      .set({ ...set, updatedAt: sql`now()` })
      .where(eq(caCertificates.id, current.id))
      .returning();
    return row;
  });
}

/** Devices whose certificates chain only to this CA stop authenticating at once. */
export async function deleteCaCertificate(db: Executor, actor: Actor, prn: string): Promise<void> {
  const row = await getCaCertificate(db, actor, prn);
  await db.delete(caCertificates).where(eq(caCertificates.id, row.id));
  verifiedChains.forgetCa(row.id);
}
