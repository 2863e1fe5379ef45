/**
 * The database side of chain verification: registered CAs of every organization that might have
 * issued a certificate, read at handshake time (never a static trust store, so a CA registered a
 * second ago works). Parsed certificates are kept by fingerprint, so the per-certificate summary
 * cache in pem.ts stays warm across connections; a stored certificate never changes.
 */
import { X509Certificate } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { resourcePrn } from '../http/prn';
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

export function registeredCaFinder(db: Executor): FindCaCandidates<RegisteredCaRecord> {
  return async (key: CaLookupKey) => {
    const condition =
      'authorityKeyIdentifier' in key ? eq(caCertificates.subjectKeyIdentifier, key.authorityKeyIdentifier) : eq(caCertificates.subjectName, key.issuerName);
    const rows = await db
      .select({
        id: caCertificates.id,
        organizationId: caCertificates.organizationId,
        certificate: caCertificates.certificate,
        fingerprint: caCertificates.fingerprint,
        jitp: caCertificates.jitp,
      })
      .from(caCertificates)
      .where(condition)
      .limit(20);
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organizationId,
      prn: resourcePrn(row.organizationId, 'ca_certificate', row.id),
      jitp: row.jitp,
      certificate: certificateOf(row.fingerprint, row.certificate),
    }));
  };
}
