// Verifies a device's client certificate chain against the CA certificates registered in Canopy.
// The TLS layer accepts any client certificate (requestCert without rejectUnauthorized); this is
// the real check. It reads the registered CAs at handshake time rather than using a static trust
// store, so a CA registered a second ago works without a restart.
import { X509Certificate } from 'node:crypto';
import { isUsableLeafCommonName } from './field-limits';
import type { CertificateSummary } from './pem';
import { CertificateDecodeError, mayIssueCertificates, summarizeCertificate } from './pem';

/** A registered CA as the caller stores it; extra fields (prn, organisation, JITP) ride along. */
export interface RegisteredCa {
  certificate: X509Certificate;
}

/**
 * How to find the CA that issued a certificate: by the certificate's authority key identifier
 * (upper-case hex, compare with the CA's subject key identifier) or, when it has none or nothing
 * matched, by the issuer name (compare with the CA's `subjectName` from `summarizeCertificate`).
 */
export type CaLookupKey = { authorityKeyIdentifier: string } | { issuerName: string };

/** Registered CAs of any organisation that might have issued the certificate; signatures decide. */
export type FindCaCandidates<Ca extends RegisteredCa> = (key: CaLookupKey) => Promise<readonly Ca[]>;

export type ChainFailureReason =
  | 'no_certificate'
  | 'malformed'
  | 'self_signed'
  | 'unknown_ca'
  | 'expired'
  | 'not_yet_valid'
  | 'bad_signature'
  | 'issuer_not_a_ca'
  | 'chain_too_long';

/** Which certificate a failure is about. */
export type ChainPosition = 'leaf' | 'intermediate' | 'ca';

export interface ChainInput<Ca extends RegisteredCa> {
  leaf: X509Certificate | Buffer | null | undefined;
  /** Certificates the client sent after its leaf, in any order; the registered CA may be among them. */
  intermediates?: readonly (X509Certificate | Buffer)[];
  findCaCandidates: FindCaCandidates<Ca>;
  now?: Date;
  /** Most intermediates walked between leaf and registered CA. */
  maxIntermediates?: number;
}

export type ChainResult<Ca extends RegisteredCa> =
  | { ok: true; ca: Ca; leafSummary: CertificateSummary; intermediates: X509Certificate[] }
  | {
      ok: false;
      reason: ChainFailureReason;
      position?: ChainPosition;
      /** Set when the failure is about a known registered CA (expired, not a CA) or came after finding it. */
      ca?: Ca;
      /** Set whenever the leaf parsed, so the caller can log its fingerprint and CN. */
      leafSummary?: CertificateSummary;
    };

const DEFAULT_MAX_INTERMEDIATES = 4;

export async function verifyClientCertificateChain<Ca extends RegisteredCa>(input: ChainInput<Ca>): Promise<ChainResult<Ca>> {
  try {
    return await verifyChain(input);
  } catch (error) {
    // A name decoded on first read (pem.ts) that does not decode: the certificate is malformed.
    if (error instanceof CertificateDecodeError) return { ok: false, reason: 'malformed' };
    throw error;
  }
}

async function verifyChain<Ca extends RegisteredCa>(input: ChainInput<Ca>): Promise<ChainResult<Ca>> {
  const now = input.now ?? new Date();
  if (!input.leaf || (Buffer.isBuffer(input.leaf) && input.leaf.length === 0)) return { ok: false, reason: 'no_certificate' };

  const leaf = toCertificate(input.leaf);
  const leafSummary = leaf && trySummarize(leaf);
  if (!leaf || !leafSummary) return { ok: false, reason: 'malformed', position: 'leaf' };
  // A CN no device identifier, event or log could hold (control characters, lone surrogates, too
  // long): refused here, without its summary, so it never reaches the database.
  if (!isUsableLeafCommonName(leafSummary.commonName)) return { ok: false, reason: 'malformed', position: 'leaf' };
  const fail = (reason: ChainFailureReason, position?: ChainPosition, ca?: Ca): ChainResult<Ca> => ({
    ok: false,
    reason,
    ...(position ? { position } : {}),
    ...(ca ? { ca } : {}),
    leafSummary,
  });

  const leafValidity = validityProblem(leafSummary, now);
  if (leafValidity) return fail(leafValidity, 'leaf');
  // A self-signed leaf vouches only for itself; it is refused even if someone registered it.
  if (isSelfSigned(leaf)) return fail('self_signed', 'leaf');

  const presented: X509Certificate[] = [];
  for (const raw of input.intermediates ?? []) {
    const certificate = toCertificate(raw);
    // Clients often resend their leaf in the chain; skip it rather than walk a loop.
    if (certificate && !certificate.raw.equals(leaf.raw)) presented.push(certificate);
  }

  const walked: X509Certificate[] = [];
  let current = leaf;
  let currentSummary = leafSummary;
  const maxIntermediates = input.maxIntermediates ?? DEFAULT_MAX_INTERMEDIATES;

  for (;;) {
    const candidates = await lookUpIssuers(currentSummary, input.findCaCandidates);
    const signers = candidates.filter((ca) => signatureVerifies(current, ca.certificate));
    const signatureMismatch = candidates.length > signers.length;
    // A CA renewed with the same key is registered twice (old and new certificate); any one
    // usable signer anchors the chain, and only when none is usable does the first one's problem count.
    let firstProblem: ChainResult<Ca> | null = null;
    for (const ca of signers) {
      const problem = registeredCaProblem(ca, now);
      if (!problem) return { ok: true, ca, leafSummary, intermediates: walked };
      firstProblem ??= fail(problem, 'ca', ca);
    }
    if (firstProblem) return firstProblem;

    // Not issued by a registered CA directly: follow a presented intermediate one step up.
    const index = presented.findIndex((candidate) => namesIssuer(candidate, current, currentSummary));
    if (index < 0) return fail(signatureMismatch ? 'bad_signature' : 'unknown_ca', walked.length === 0 ? 'leaf' : 'intermediate');
    const [issuer] = presented.splice(index, 1);
    if (!signatureVerifies(current, issuer)) return fail('bad_signature', walked.length === 0 ? 'leaf' : 'intermediate');
    const issuerSummary = trySummarize(issuer);
    if (!issuerSummary) return fail('malformed', 'intermediate');
    const issuerValidity = validityProblem(issuerSummary, now);
    if (issuerValidity) return fail(issuerValidity, 'intermediate');
    if (!mayIssueCertificates(issuerSummary)) return fail('issuer_not_a_ca', 'intermediate');
    // Reaching an unregistered self-signed root means nothing registered vouches for the chain.
    if (isSelfSigned(issuer)) return fail('unknown_ca', 'intermediate');

    walked.push(issuer);
    if (walked.length > maxIntermediates) return fail('chain_too_long', 'intermediate');
    current = issuer;
    currentSummary = issuerSummary;
  }
}

function registeredCaProblem(ca: RegisteredCa, now: Date): 'malformed' | 'expired' | 'not_yet_valid' | 'issuer_not_a_ca' | null {
  const summary = trySummarize(ca.certificate);
  if (!summary) return 'malformed';
  return validityProblem(summary, now) ?? (mayIssueCertificates(summary) ? null : 'issuer_not_a_ca');
}

async function lookUpIssuers<Ca extends RegisteredCa>(summary: CertificateSummary, find: FindCaCandidates<Ca>): Promise<readonly Ca[]> {
  if (summary.authorityKeyIdentifier) {
    const byKeyId = await find({ authorityKeyIdentifier: summary.authorityKeyIdentifier });
    if (byKeyId.length > 0) return byKeyId;
  }
  // CAs without a subject key identifier are still findable by name; the signature check keeps
  // a same-named impostor out. A same-named CA whose key id contradicts the certificate's is
  // someone else's CA (names like "CN=My CA" repeat across organisations), not a forgery.
  const byName = await find({ issuerName: summary.issuerName });
  const wanted = summary.authorityKeyIdentifier;
  if (!wanted) return byName;
  return byName.filter((ca) => {
    const keyId = trySummarize(ca.certificate)?.subjectKeyIdentifier;
    return !keyId || keyId === wanted;
  });
}

function validityProblem(summary: CertificateSummary, now: Date): 'expired' | 'not_yet_valid' | null {
  if (now > summary.notAfter) return 'expired';
  if (now < summary.notBefore) return 'not_yet_valid';
  return null;
}

// Names and key ids only pick the candidate; OpenSSL's checkIssued is not used because it also
// rejects on keyUsage, which would hide the clearer `issuer_not_a_ca` reason. Names are compared
// as OpenSSL prints them, which costs nothing, where the summary's names need a full parse.
function namesIssuer(candidate: X509Certificate, subject: X509Certificate, subjectSummary: CertificateSummary): boolean {
  const issuer = trySummarize(candidate);
  if (!issuer || candidate.subject !== subject.issuer) return false;
  return !subjectSummary.authorityKeyIdentifier || !issuer.subjectKeyIdentifier || subjectSummary.authorityKeyIdentifier === issuer.subjectKeyIdentifier;
}

function isSelfSigned(certificate: X509Certificate): boolean {
  return certificate.subject === certificate.issuer && signatureVerifies(certificate, certificate);
}

function signatureVerifies(subject: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return subject.verify(issuer.publicKey);
  } catch {
    // OpenSSL throws rather than answering false for some key/algorithm mismatches.
    return false;
  }
}

function toCertificate(value: X509Certificate | Buffer): X509Certificate | null {
  if (value instanceof X509Certificate) return value;
  try {
    return new X509Certificate(value);
  } catch {
    return null;
  }
}

function trySummarize(certificate: X509Certificate): CertificateSummary | null {
  try {
    return summarizeCertificate(certificate);
  } catch {
    return null;
  }
}
