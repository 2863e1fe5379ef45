/**
 * Reads one certificate from an API body field, answering the 422 the contract wants (naming
 * the field and the reason) instead of the parser's typed result.
 */
import { invalidField } from '../http/errors';
import { MAX_CERTIFICATE_INPUT_LENGTH, parseCertificateInput, type ParsedCertificate } from './pem';

export function certificateFromField(field: string, value: unknown): ParsedCertificate {
  const parsed = parseCertificateInput(value);
  if (parsed.ok) return parsed.value;
  if (parsed.reason === 'missing') throw invalidField(field, 'required');
  if (parsed.reason === 'too_large') throw invalidField(field, 'too_long', { max: MAX_CERTIFICATE_INPUT_LENGTH });
  throw invalidField(field, parsed.reason);
}

/** Refused at registration: it could never authenticate anything. */
export function assertNotExpired(field: string, certificate: ParsedCertificate, now = new Date()): void {
  if (now > certificate.summary.notAfter) throw invalidField(field, 'expired');
  if (now < certificate.summary.notBefore) throw invalidField(field, 'not_yet_valid');
}
