// The spec's storage limits for certificate-derived fields (spec 2, validation rules). A
// certificate can parse fine and still carry a CN we cannot store as a device identifier, so
// the admin and JITP paths check these before writing, and answer 422 on the `certificate` field.
import type { CertificateSummary } from './pem';

export const COMMON_NAME_MAX_LENGTH = 64;
export const AUTHORITY_KEY_IDENTIFIER_MAX_LENGTH = 256;
export const FINGERPRINT_PATTERN = /^[0-9A-F]{64}$/;

export type CertificateFieldProblem =
  | { reason: 'common_name_missing' }
  | { reason: 'common_name_invalid_characters' }
  | { reason: 'common_name_too_long'; max: number }
  | { reason: 'authority_key_identifier_too_long'; max: number };

/**
 * Problems with a device certificate's stored fields. The CN is required (it is the device
 * identifier under JITP); the authority key identifier is optional but bounded when present.
 * The fingerprint needs no check: `summarizeCertificate` always yields 64 upper-case hex.
 */
export function deviceCertificateFieldProblems(summary: CertificateSummary): CertificateFieldProblem[] {
  const problems: CertificateFieldProblem[] = [];
  // Length in characters as the database column counts them, not UTF-8 bytes.
  const commonNameLength = summary.commonName === null ? 0 : [...summary.commonName].length;
  if (commonNameLength === 0) problems.push({ reason: 'common_name_missing' });
  else if (!isCertificateText(summary.commonName!)) problems.push({ reason: 'common_name_invalid_characters' });
  else if (commonNameLength > COMMON_NAME_MAX_LENGTH) problems.push({ reason: 'common_name_too_long', max: COMMON_NAME_MAX_LENGTH });
  if (summary.authorityKeyIdentifier !== null && summary.authorityKeyIdentifier.length > AUTHORITY_KEY_IDENTIFIER_MAX_LENGTH) {
    problems.push({ reason: 'authority_key_identifier_too_long', max: AUTHORITY_KEY_IDENTIFIER_MAX_LENGTH });
  }
  return problems;
}

// C0 and C1 control characters and DEL: PostgreSQL refuses U+0000 in text and JSON, and the rest
// have no place in an identifier, an event or a log line.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether text read from a certificate (a name, a CN) may be stored, looked up, put in an event
 * or logged: no control characters and no lone UTF-16 surrogates (a BMPString can carry them,
 * and PostgreSQL refuses them in JSON). Invalid UTF-8 never gets this far: it does not decode
 * (der-fields.ts, pem.ts).
 */
export function isCertificateText(value: string): boolean {
  return !CONTROL_CHARACTER.test(value) && !LONE_SURROGATE.test(value);
}

/**
 * A device certificate's CN as the device API may use it: absent, or certificate text no longer
 * than a device identifier. Anything else is refused as `malformed` before it reaches the database.
 */
export function isUsableLeafCommonName(commonName: string | null): boolean {
  return commonName === null || (isCertificateText(commonName) && [...commonName].length <= COMMON_NAME_MAX_LENGTH);
}
