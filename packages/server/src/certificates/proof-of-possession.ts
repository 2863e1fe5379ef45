// The check behind CA registration (`POST /ca_certificates`): the registrant proves they hold the
// CA's private key by signing a verification certificate whose CN is a code Canopy handed out.
import type { ParsedCertificate } from './pem';
import { mayIssueCertificates } from './pem';

export type ProofOfPossessionReason =
  | 'ca_expired'
  | 'ca_not_yet_valid'
  | 'not_a_ca'
  | 'verification_not_signed_by_ca'
  | 'verification_code_mismatch'
  | 'verification_expired'
  | 'verification_not_yet_valid';

/** Which API field a failure belongs to, so the 422 names it. */
export type ProofOfPossessionField = 'certificate' | 'verification_certificate';

export interface ProofOfPossessionFailure {
  field: ProofOfPossessionField;
  reason: ProofOfPossessionReason;
}

export interface ProofOfPossessionInput {
  ca: ParsedCertificate;
  verification: ParsedCertificate;
  /** The organisation's live, unused verification codes (one or many). */
  verificationCodes: readonly string[];
  now?: Date;
}

export type ProofOfPossessionResult =
  | { ok: true; matchedCode: string }
  /** Every failing check, in field order, so the caller can answer one 422 entry per field. */
  | { ok: false; failures: ProofOfPossessionFailure[] };

export function checkProofOfPossession(input: ProofOfPossessionInput): ProofOfPossessionResult {
  const now = input.now ?? new Date();
  const ca = input.ca.summary;
  const verification = input.verification.summary;
  const failures: ProofOfPossessionFailure[] = [];
  const fail = (field: ProofOfPossessionField, reason: ProofOfPossessionReason) => failures.push({ field, reason });

  if (now > ca.notAfter) fail('certificate', 'ca_expired');
  else if (now < ca.notBefore) fail('certificate', 'ca_not_yet_valid');
  if (!mayIssueCertificates(ca)) fail('certificate', 'not_a_ca');

  // The signature is the proof: only the holder of the CA's private key can produce it. A name
  // match alone would let anyone register someone else's public CA certificate.
  if (!signatureVerifies(input.verification, input.ca)) fail('verification_certificate', 'verification_not_signed_by_ca');
  const matchedCode = input.verificationCodes.find((code) => code === verification.commonName);
  if (matchedCode === undefined) fail('verification_certificate', 'verification_code_mismatch');
  if (now > verification.notAfter) fail('verification_certificate', 'verification_expired');
  else if (now < verification.notBefore) fail('verification_certificate', 'verification_not_yet_valid');

  if (failures.length > 0 || matchedCode === undefined) return { ok: false, failures };
  return { ok: true, matchedCode };
}

function signatureVerifies(subject: ParsedCertificate, issuer: ParsedCertificate): boolean {
  try {
    return subject.certificate.verify(issuer.certificate.publicKey);
  } catch {
    // OpenSSL throws rather than answering false for some key/algorithm mismatches.
    return false;
  }
}
