/**
 * The database side of chain verification: registered CAs that might have issued a certificate,
 * read at handshake time (never a static trust store, so a CA registered a second ago works). Parsed certificates are kept by fingerprint, so the per-certificate summary
 * cache in pem.ts stays warm across connections; a stored certificate never changes.
 */
import { X509Certificate } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { prepared } from '../read-path/prepared-queries';
import { resourcePrn } from '../core/prn';
import type { CaLookupKey, FindCaCandidates, RegisteredCa } from './chain';
import { isCertificateText } from './field-limits';
import { caCertificates, type JitpSettings } from './schema';

export interface RegisteredCaRecord extends RegisteredCa {
  id: string;
  organizationId: string;
  prn: string;
  jitp: JitpSettings | null;
}

const MAX_PARSED = 10_000;
const parsed = new Map<string, X509Certificate>();

function certificateOf(fingerprint: string, pem: string): X509Certificate {
  let certificate = parsed.get(fingerprint);
  if (!certificate) {
    if (parsed.size >= MAX_PARSED) parsed.clear();
    certificate = new X509Certificate(pem);
    parsed.set(fingerprint, certificate);
  }
  return certificate;
}

interface CaRow {
  id: string;
  organizationId: string;
  certificate: string;
  fingerprint: string;
  jitp: JitpSettings | null;
}

// Prepared (read-path/owned-rows.ts): a device's first connection after a start runs one of these.
// Oldest registration first, so which organization's CA anchors a chain never depends on the plan.
function candidatesQuery(db: Executor, by: 'key_id' | 'name', scoped: boolean) {
  return prepared(db, `ca_candidates_by_${by}${scoped ? '_of_organization' : ''}`, () =>
    db
      .select({
        id: caCertificates.id,
        organizationId: caCertificates.organizationId,
        certificate: caCertificates.certificate,
        fingerprint: caCertificates.fingerprint,
        jitp: caCertificates.jitp,
      })
      .from(caCertificates)
      .where(
        and(
          eq(by === 'key_id' ? caCertificates.subjectKeyIdentifier : caCertificates.subjectName, sql.placeholder('value')),
          scoped ? eq(caCertificates.organizationId, sql.placeholder('organizationId')) : undefined,
        ),
      )
      .orderBy(caCertificates.insertedAt, caCertificates.id)
      .limit(20),
  );
}

/**
 * The registered CAs that may have issued a certificate: of `organizationId` only when given
 * (a registered device certificate is vouched for by its own organization's CAs alone), else of
 * any organization.
 */
export function registeredCaFinder(db: Executor, organizationId?: string): FindCaCandidates<RegisteredCaRecord> {
  return async (key: CaLookupKey) => {
    const value = 'authorityKeyIdentifier' in key ? key.authorityKeyIdentifier : key.issuerName;
    // Registration refuses such names (certificate-field.ts), and PostgreSQL refuses U+0000 in a parameter.
    if (!isCertificateText(value)) return [];
    const query = candidatesQuery(db, 'authorityKeyIdentifier' in key ? 'key_id' : 'name', organizationId !== undefined);
    const rows = (await query.execute({ value, organizationId })) as CaRow[];
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organizationId,
      prn: resourcePrn(row.organizationId, 'ca_certificate', row.id),
      jitp: row.jitp,
      certificate: certificateOf(row.fingerprint, row.certificate),
    }));
  };
}
