// Decodes the certificates the API receives and summarises what the rest of Canopy needs from
// them. Node's X509Certificate (OpenSSL) is the parser of record; @peculiar/x509 reads what Node
// does not expose: names as structured values and the key identifier extensions.
import { createHash, X509Certificate } from 'node:crypto';
import { readDerFields, type DerFields } from './der-fields';
import { x509 } from './x509-library';

export interface CertificateSummary {
  /** Subject CN, or null when the subject has none. */
  commonName: string | null;
  /** Subject distinguished name as an RFC 4514 string, e.g. `CN=Acme Root, O=Acme`. */
  subjectName: string;
  /** Issuer distinguished name in the same form; equals a CA's `subjectName`. */
  issuerName: string;
  /** Serial number in decimal: the form the API shows (Node reports hex). */
  serial: string;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 over the DER: 64 upper-case hex characters, no colons. */
  fingerprintSha256: string;
  /** Upper-case hex, no colons; null when the extension is absent. */
  subjectKeyIdentifier: string | null;
  /** The key id of the authority key identifier extension, upper-case hex; null when absent. */
  authorityKeyIdentifier: string | null;
  /** basicConstraints CA:TRUE. */
  isCa: boolean;
  /** False only when a keyUsage extension is present and lacks keyCertSign. */
  keyUsageAllowsCertSign: boolean;
  /** `ecdsa-p256`, `ecdsa-p384`, `ecdsa-p521`, `ed25519`, `ed448`, `rsa-2048`, `rsa-pss-2048` ... */
  keyAlgorithm: string;
}

export interface ParsedCertificate {
  /** The single certificate as normalised PEM (what to store). */
  pem: string;
  der: Buffer;
  certificate: X509Certificate;
  summary: CertificateSummary;
}

export type CertificateInputProblem =
  /** Not a string, or blank. */
  | 'missing'
  /** Longer than MAX_CERTIFICATE_INPUT_LENGTH: refused before any decoding work. */
  | 'too_large'
  /** Neither PEM nor base64 of PEM/DER, or the bytes are not an X.509 certificate. */
  | 'malformed'
  /** More than one certificate where exactly one is expected. */
  | 'multiple_certificates';

export type ParseCertificateResult =
  | { ok: true; value: ParsedCertificate }
  | { ok: false; reason: CertificateInputProblem };

// Real certificates are 0.5-4 KiB; a generous cap keeps a hostile body from costing parse time.
export const MAX_CERTIFICATE_INPUT_LENGTH = 64 * 1024;

const PEM_CERTIFICATE_BLOCK =
  /-----BEGIN CERTIFICATE-----[\r\n]+([A-Za-z0-9+/=\r\n\t ]+?)-----END CERTIFICATE-----/g;
const BASE64_TEXT = /^[A-Za-z0-9+/=_\-\s]+$/;

/**
 * Parses one certificate from an API field. The contract sends base64 of a PEM; raw PEM and
 * base64 of DER are accepted too, because users paste whatever their tool printed.
 */
export function parseCertificateInput(input: unknown): ParseCertificateResult {
  const parsed = parseCertificateBundleInput(input, 1);
  return parsed.ok ? { ok: true, value: parsed.value[0] } : parsed;
}

/**
 * Parses a certificate followed by up to `max - 1` more (PEM blocks in order; base64 of DER is
 * one certificate): a device certificate with the intermediates that lead to its CA.
 */
export function parseCertificateBundleInput(input: unknown, max: number): { ok: true; value: ParsedCertificate[] } | { ok: false; reason: CertificateInputProblem } {
  if (typeof input !== 'string' || input.trim() === '') return { ok: false, reason: 'missing' };
  if (input.length > MAX_CERTIFICATE_INPUT_LENGTH) return { ok: false, reason: 'too_large' };

  const ders = decodeToDer(input);
  if (!ders.ok) return ders;
  if (ders.value.length > max) return { ok: false, reason: 'multiple_certificates' };
  const certificates: ParsedCertificate[] = [];
  for (const der of ders.value) {
    const parsed = parseCertificateDer(der);
    if (!parsed.ok) return parsed;
    certificates.push(parsed.value);
  }
  return { ok: true, value: certificates };
}

/** Parses DER bytes (e.g. what a TLS socket hands over) into the same result shape. */
export function parseCertificateDer(der: Buffer): ParseCertificateResult {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(der);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const summary = trySummarize(certificate);
  if (!summary) return { ok: false, reason: 'malformed' };
  return { ok: true, value: { pem: certificate.toString(), der: certificate.raw, certificate, summary } };
}

/** Returns the PEM blocks of an API field, base64-wrapped or not, as DER bytes each. */
function decodeToDer(input: string): { ok: true; value: Buffer[] } | { ok: false; reason: CertificateInputProblem } {
  const text = input.includes('-----BEGIN') ? input : decodeBase64Text(input);
  if (text === null) return { ok: false, reason: 'malformed' };
  if (typeof text !== 'string') return { ok: true, value: [text] }; // base64 of DER

  const blocks = [...text.matchAll(PEM_CERTIFICATE_BLOCK)];
  if (blocks.length === 0) return { ok: false, reason: 'malformed' };
  return { ok: true, value: blocks.map((block) => Buffer.from(block[1].replace(/\s+/g, ''), 'base64')) };
}

/** base64 -> PEM text, or the raw bytes when they look like DER (a SEQUENCE), or null. */
function decodeBase64Text(input: string): string | Buffer | null {
  if (!BASE64_TEXT.test(input)) return null;
  // Node's base64 decoder also takes the URL-safe alphabet, so both forms arrive here.
  const bytes = Buffer.from(input.replace(/\s+/g, ''), 'base64');
  if (bytes.length === 0) return null;
  if (bytes[0] === 0x30) return bytes;
  const text = bytes.toString('utf8');
  return text.includes('-----BEGIN') ? text : null;
}

// Summaries are asked for on every TLS handshake for the same registered CA objects; caching by
// object identity makes a caller's cached X509Certificate cheap without any invalidation rules.
const summaries = new WeakMap<X509Certificate, CertificateSummary>();

/** A certificate OpenSSL accepted whose names or extensions @peculiar/x509 cannot decode. */
export class CertificateDecodeError extends Error {}

/**
 * Summarises a parsed certificate. Most fields come from a direct read of the DER (der-fields.ts);
 * the two distinguished names need @peculiar/x509's full parse, which costs milliseconds, so they
 * are decoded on first read: the device API's usual path (a leaf found by its authority key
 * identifier) never reads them. Certificates the direct read does not handle take the full parse
 * for every field. Throws CertificateDecodeError when the full parse fails, up front or on the
 * first read of a name; parseCertificateDer reads both names, so parsed input is fully checked.
 */
export function summarizeCertificate(certificate: X509Certificate): CertificateSummary {
  const cached = summaries.get(certificate);
  if (cached) return cached;

  let detail: x509.X509Certificate | undefined;
  const parsedDetail = () => {
    try {
      detail ??= new x509.X509Certificate(certificate.raw);
      return detail;
    } catch (error) {
      throw new CertificateDecodeError(error instanceof Error ? error.message : String(error));
    }
  };
  let fields: DerFields | null = null;
  try {
    fields = readDerFields(certificate.raw);
  } catch {
    // Unusual but valid encodings: the full parse below reads them.
  }
  const summary: CertificateSummary =
    fields && fields.commonName !== undefined
      ? {
          ...fields,
          commonName: fields.commonName,
          get subjectName() {
            return parsedDetail().subject;
          },
          get issuerName() {
            return parsedDetail().issuer;
          },
          serial: hexSerialToDecimal(certificate.serialNumber),
          fingerprintSha256: fingerprintOf(certificate),
          keyAlgorithm: describeKeyAlgorithm(certificate),
        }
      : fullySummarize(certificate, parsedDetail());
  summaries.set(certificate, summary);
  return summary;
}

function fullySummarize(certificate: X509Certificate, detail: x509.X509Certificate): CertificateSummary {
  try {
    const basicConstraints = detail.getExtension(x509.BasicConstraintsExtension);
    const keyUsage = detail.getExtension(x509.KeyUsagesExtension);
    const subjectKeyId = detail.getExtension(x509.SubjectKeyIdentifierExtension);
    const authorityKeyId = detail.getExtension(x509.AuthorityKeyIdentifierExtension);
    return {
      commonName: firstCommonName(detail.subjectName),
      subjectName: detail.subject,
      issuerName: detail.issuer,
      serial: hexSerialToDecimal(certificate.serialNumber),
      notBefore: detail.notBefore,
      notAfter: detail.notAfter,
      fingerprintSha256: fingerprintOf(certificate),
      subjectKeyIdentifier: subjectKeyId ? subjectKeyId.keyId.toUpperCase() : null,
      authorityKeyIdentifier: authorityKeyId?.keyId ? authorityKeyId.keyId.toUpperCase() : null,
      isCa: basicConstraints?.ca === true,
      keyUsageAllowsCertSign: !keyUsage || (keyUsage.usages & x509.KeyUsageFlags.keyCertSign) !== 0,
      keyAlgorithm: describeKeyAlgorithm(certificate),
    };
  } catch (error) {
    throw new CertificateDecodeError(error instanceof Error ? error.message : String(error));
  }
}

const fingerprintOf = (certificate: X509Certificate) => createHash('sha256').update(certificate.raw).digest('hex').toUpperCase();

function trySummarize(certificate: X509Certificate): CertificateSummary | null {
  try {
    const summary = summarizeCertificate(certificate);
    // Reading the names decodes them: input that reaches the API is checked in full here.
    void summary.subjectName;
    void summary.issuerName;
    return summary;
  } catch {
    return null;
  }
}

/** A certificate may sign others only with CA:TRUE and, when keyUsage is present, keyCertSign. */
export function mayIssueCertificates(summary: CertificateSummary): boolean {
  return summary.isCa && summary.keyUsageAllowsCertSign;
}

function firstCommonName(name: x509.Name): string | null {
  const values = name.getField('CN');
  return values.length > 0 ? values[0] : null;
}

/** Node gives the serial as hex; the API shows it in decimal, like `openssl x509 -serial` users compare against. */
export function hexSerialToDecimal(hex: string): string {
  const digits = hex.replace(/[^0-9a-fA-F]/g, '');
  return digits === '' ? '0' : BigInt(`0x${digits}`).toString(10);
}

const CURVE_NAMES: Record<string, string> = {
  prime256v1: 'p256',
  'P-256': 'p256',
  secp384r1: 'p384',
  'P-384': 'p384',
  secp521r1: 'p521',
  'P-521': 'p521',
};

function describeKeyAlgorithm(certificate: X509Certificate): string {
  const key = certificate.publicKey;
  const type = key.asymmetricKeyType ?? 'unknown';
  const details = key.asymmetricKeyDetails ?? {};
  if (type === 'ec') {
    const curve = details.namedCurve ?? 'unknown';
    return `ecdsa-${CURVE_NAMES[curve] ?? curve}`;
  }
  if ((type === 'rsa' || type === 'rsa-pss') && details.modulusLength) return `${type}-${details.modulusLength}`;
  return type;
}
