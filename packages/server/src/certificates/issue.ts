// Builds certificates: the server's own self-signed CA and server certificate at first start,
// and the test factory's roots, intermediates and device certificates. One builder means the
// tests exercise the same extensions the server issues.
import { randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { x509 } from './x509-library';

// RSA is slow to generate (~100 ms); it exists so tests can prove RSA device fleets work.
export type KeyType = 'ecdsa-p256' | 'ed25519' | 'rsa-2048';

type WebCryptoKeyPair = webcrypto.CryptoKeyPair;

export interface IssuedCertificate {
  certPem: string;
  /** PKCS#8 PEM. */
  keyPem: string;
  cert: X509Certificate;
  keyType: KeyType;
  /** Kept so this certificate can sign others without re-importing its key. */
  keys: WebCryptoKeyPair;
}

export interface CertificateRequest {
  /** A CN, a CN and organization, or a name as @peculiar/x509 takes it (string types chosen: tests of odd names). */
  subject: string | { commonName: string; organization?: string } | x509.JsonNameParams;
  /** The issuing certificate; omit for a self-signed certificate. */
  issuer?: IssuedCertificate;
  keyType?: KeyType;
  /** Reuse an existing key pair (must match keyType). */
  keys?: WebCryptoKeyPair;
  isCa?: boolean;
  /** basicConstraints pathLenConstraint for CAs. */
  pathLength?: number;
  notBefore?: Date;
  notAfter?: Date;
  /** DNS names and IP addresses for subjectAltName; presence marks a TLS server certificate. */
  serverNames?: string[];
  /** Adds extendedKeyUsage clientAuth: what device certificates are for. */
  clientAuth?: boolean;
}

const RSA_SHA256 = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
const ALGORITHMS: Record<KeyType, { generate: webcrypto.EcKeyGenParams | webcrypto.RsaHashedKeyGenParams | webcrypto.Algorithm; sign: webcrypto.EcdsaParams | webcrypto.Algorithm }> = {
  'ecdsa-p256': { generate: { name: 'ECDSA', namedCurve: 'P-256' }, sign: { name: 'ECDSA', hash: 'SHA-256' } },
  ed25519: { generate: { name: 'Ed25519' }, sign: { name: 'Ed25519' } },
  'rsa-2048': { generate: { ...RSA_SHA256, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, sign: RSA_SHA256 },
};

export async function generateKeyPair(keyType: KeyType = 'ecdsa-p256'): Promise<WebCryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHMS[keyType].generate, true, ['sign', 'verify'])) as WebCryptoKeyPair;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export async function issueCertificate(request: CertificateRequest): Promise<IssuedCertificate> {
  const keyType = request.keyType ?? 'ecdsa-p256';
  const keys = request.keys ?? (await generateKeyPair(keyType));
  const issuer = request.issuer;
  // Back-date a minute so a certificate made now is valid on a peer whose clock is slightly behind.
  const notBefore = request.notBefore ?? new Date(Date.now() - 60_000);
  const notAfter = request.notAfter ?? new Date(notBefore.getTime() + 365 * DAY_MS);

  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(request.isCa === true, request.isCa ? request.pathLength : undefined, true),
    new x509.KeyUsagesExtension(
      request.isCa
        ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign
        : x509.KeyUsageFlags.digitalSignature,
      true,
    ),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    await x509.AuthorityKeyIdentifierExtension.create((issuer?.keys ?? keys).publicKey),
  ];
  const usages = [
    ...(request.serverNames ? [x509.ExtendedKeyUsage.serverAuth] : []),
    ...(request.clientAuth ? [x509.ExtendedKeyUsage.clientAuth] : []),
  ];
  if (usages.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(usages));
  if (request.serverNames) extensions.push(new x509.SubjectAlternativeNameExtension(toGeneralNames(request.serverNames)));

  const subject = distinguishedName(request.subject);
  const signingKeys = issuer?.keys ?? keys;
  const signed = await x509.X509CertificateGenerator.create({
    // Positive 16-byte serial: the top bit cleared so DER needs no sign byte and it stays positive.
    serialNumber: positiveSerialHex(),
    subject,
    // The issuer's subject as decoded from its certificate, so names match byte for byte.
    issuer: issuer ? new x509.X509Certificate(issuer.cert.raw).subjectName : subject,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: signingKeys.privateKey,
    signingAlgorithm: ALGORITHMS[issuer?.keyType ?? keyType].sign,
    extensions,
  });

  const certPem = asPemFile(signed.toString('pem'));
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    certPem,
    keyPem: asPemFile(x509.PemConverter.encode(pkcs8, 'PRIVATE KEY')),
    cert: new X509Certificate(certPem),
    keyType,
    keys,
  };
}

// LF line ends and a final newline, as PEM files have: concatenating two then yields a valid
// bundle (leaf + intermediate), which the library's output alone would not.
function asPemFile(pem: string): string {
  return `${pem.replace(/\r\n/g, '\n').trimEnd()}\n`;
}

function distinguishedName(subject: CertificateRequest['subject']): x509.JsonName | x509.Name {
  if (Array.isArray(subject)) return new x509.Name(subject);
  const parts = typeof subject === 'string' ? { commonName: subject } : subject;
  // JsonName keeps the exact value (no RFC 4514 escaping rules to get wrong for codes and ids).
  const name: x509.JsonName = [{ CN: [parts.commonName] }];
  if (parts.organization) name.push({ O: [parts.organization] });
  return name;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

function toGeneralNames(names: string[]): x509.JsonGeneralNames {
  return names.map((value) => ({ type: IPV4.test(value) || value.includes(':') ? 'ip' : 'dns', value }));
}

function positiveSerialHex(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  return bytes.toString('hex');
}

/** Loads a stored CA (certificate + PKCS#8 key PEM) back into something that can sign. */
export async function importIssuer(certPem: string, keyPem: string): Promise<IssuedCertificate> {
  const cert = new X509Certificate(certPem);
  const keyType = keyTypeOf(cert);
  const algorithm = keyType === 'rsa-2048' ? RSA_SHA256 : ALGORITHMS[keyType].generate;
  const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
  const pkcs8 = x509.PemConverter.decodeFirst(keyPem);
  const keys: WebCryptoKeyPair = {
    publicKey: await webcrypto.subtle.importKey('spki', spki, algorithm, true, ['verify']),
    privateKey: await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, true, ['sign']),
  };
  return { certPem: cert.toString(), keyPem, cert, keyType, keys };
}

function keyTypeOf(cert: X509Certificate): KeyType {
  const type = cert.publicKey.asymmetricKeyType;
  if (type === 'ed25519') return 'ed25519';
  if (type === 'rsa') return 'rsa-2048';
  if (type === 'ec' && cert.publicKey.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ecdsa-p256';
  throw new Error(`unsupported issuer key type ${type}`);
}
