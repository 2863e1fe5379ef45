/**
 * The database side of chain verification: registered CAs of every organization that might have
 * issued a certificate, read at handshake time (never a static trust store, so a CA registered a
 * second ago works). Parsed certificates are kept by fingerprint, so the per-certificate summary
 * cache in pem.ts stays warm across connections; a stored certificate never changes.
 */
import { X509Certificate } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { prepared } from '../read-path/prepared-queries';
import { resourcePrn } from '../core/prn';
import type { CaLookupKey, FindCaCandidates, RegisteredCa } from './chain';
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
function candidatesQuery(db: Executor, by: 'key_id' | 'name') {
  return prepared(db, `ca_candidates_by_${by}`, () =>
    db
      .select({
        id: caCertificates.id,
        organizationId: caCertificates.organizationId,
        certificate: caCertificates.certificate,
        fingerprint: caCertificates.fingerprint,
        jitp: caCertificates.jitp,
      })
      .from(caCertificates)
      .where(eq(by === 'key_id' ? caCertificates.subjectKeyIdentifier : caCertificates.subjectName, sql.placeholder('value')))
      .limit(20),
  );
}

export function registeredCaFinder(db: Executor): FindCaCandidates<RegisteredCaRecord> {
  return async (key: CaLookupKey) => {
    const query = 'authorityKeyIdentifier' in key ? candidatesQuery(db, 'key_id') : candidatesQuery(db, 'name');
    const rows = (await query.execute({ value: 'authorityKeyIdentifier' in key ? key.authorityKeyIdentifier : key.issuerName })) as CaRow[];
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organizationId,
      prn: resourcePrn(row.organizationId, 'ca_certificate', row.id),
      jitp: row.jitp,
      certificate: certificateOf(row.fingerprint, row.certificate),
    }));
  };
}
