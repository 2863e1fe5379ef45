/**
 * Reads one certificate from an API body field, answering the 422 the contract wants (naming
 * the field and the reason) instead of the parser's typed result.
 */
import { invalidField } from '../http/errors';
import { isCertificateText } from './field-limits';
import { MAX_CERTIFICATE_INPUT_LENGTH, parseCertificateBundleInput, type CertificateInputProblem, type ParsedCertificate } from './pem';

export function certificateFromField(field: string, value: unknown): ParsedCertificate {
  return certificatesFromField(field, value, 1)[0];
}

/** A device certificate and, after it, up to this many intermediates leading to its CA. */
export const MAX_INTERMEDIATES_IN_FIELD = 4;

/** The field's certificate followed by the intermediates sent after it (at most `MAX_INTERMEDIATES_IN_FIELD`). */
export function certificateChainFromField(field: string, value: unknown): { leaf: ParsedCertificate; intermediates: ParsedCertificate[] } {
  const [leaf, ...intermediates] = certificatesFromField(field, value, 1 + MAX_INTERMEDIATES_IN_FIELD);
  return { leaf, intermediates };
}

function certificatesFromField(field: string, value: unknown, max: number): ParsedCertificate[] {
  const parsed = parseCertificateBundleInput(value, max);
  if (!parsed.ok) throw fieldProblem(field, parsed.reason);
  // Names are stored (a CA's subject), looked up and put in events: text PostgreSQL can hold.
  for (const { summary } of parsed.value) {
    if (![summary.subjectName, summary.issuerName, summary.commonName ?? ''].every(isCertificateText)) throw invalidField(field, 'invalid_characters');
  }
  return parsed.value;
}

function fieldProblem(field: string, reason: CertificateInputProblem) {
  if (reason === 'missing') return invalidField(field, 'required');
  if (reason === 'too_large') return invalidField(field, 'too_long', { max: MAX_CERTIFICATE_INPUT_LENGTH });
  return invalidField(field, reason);
}

/** Refused at registration: it could never authenticate anything. */
export function assertNotExpired(field: string, certificate: ParsedCertificate, now = new Date()): void {
  if (now > certificate.summary.notAfter) throw invalidField(field, 'expired');
  if (now < certificate.summary.notBefore) throw invalidField(field, 'not_yet_valid');
}
