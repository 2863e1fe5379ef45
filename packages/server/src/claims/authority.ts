/**
 * The organization's claims CA: made by the server at the first claim (ECDSA P-256, 20 years),
 * its key sealed with the secret box, its certificate registered as one of the organization's CA
 * certificates so the device API admits the certificates it signs like any other. A claimed
 * device's certificate is issued for the public key the device proved it holds.
 */
import { randomBytes, randomUUID, webcrypto } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { caCertificates } from '../certificates/schema';
import { issueCertificate } from '../certificates/issue';
import { parseCertificateInput, type ParsedCertificate } from '../certificates/pem';
import { x509 } from '../certificates/x509-library';
import type { Executor } from '../db/connection';
import type { SecretBox } from '../crypto/secret-box';
import { claimAuthorities } from './schema';

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' } as const;

export interface ClaimAuthority {
  certificatePem: string;
  privateKey: webcrypto.CryptoKey;
}

function parsed(pem: string): ParsedCertificate {
  const result = parseCertificateInput(pem);
  if (!result.ok) throw new Error(`issued certificate unreadable: ${result.reason}`);
  return result.value;
}

/** The organization's claims CA, made (and registered) in this transaction if it has none. */
export async function claimAuthorityOf(tx: Executor, secrets: SecretBox, organizationId: string): Promise<ClaimAuthority> {
  const [existing] = await tx.select().from(claimAuthorities).where(eq(claimAuthorities.organizationId, organizationId)).for('update');
  if (existing) {
    const der = x509.PemConverter.decode(secrets.open(existing.sealedKey))[0];
    return { certificatePem: existing.certificatePem, privateKey: await webcrypto.subtle.importKey('pkcs8', der, ECDSA, false, ['sign']) };
  }
  const ca = await issueCertificate({ subject: { commonName: 'Canopy claims CA', organization: organizationId }, isCa: true, pathLength: 0, notAfter: new Date(Date.now() + 20 * YEAR_MS) });
  const summary = parsed(ca.certPem).summary;
  const caId = randomUUID();
  await tx.insert(caCertificates).values({
    id: caId,
    organizationId,
    certificate: ca.certPem,
    serial: summary.serial,
    fingerprint: summary.fingerprintSha256,
    subjectKeyIdentifier: summary.subjectKeyIdentifier,
    subjectName: summary.subjectName,
    description: 'Claims CA: signs the certificates of devices enrolled with claim tokens',
    notBefore: summary.notBefore.toISOString(),
    notAfter: summary.notAfter.toISOString(),
    jitp: null,
  });
  await tx.insert(claimAuthorities).values({ organizationId, caCertificateId: caId, certificatePem: ca.certPem, sealedKey: secrets.seal(ca.keyPem) });
  return { certificatePem: ca.certPem, privateKey: ca.keys.privateKey };
}

/** A client certificate for `publicKeyDer` (SPKI, P-256) named `identifier`, signed by the claims CA. */
export async function issueDeviceCertificate(authority: ClaimAuthority, publicKeyDer: Buffer, identifier: string): Promise<ParsedCertificate> {
  const publicKey = await webcrypto.subtle.importKey('spki', publicKeyDer, ECDSA, true, ['verify']);
  const issuer = new x509.X509Certificate(authority.certificatePem);
  const issuerKey = await issuer.publicKey.export(ECDSA, ['verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: `0${randomBytes(15).toString('hex')}`,
    subject: [{ CN: [identifier] }],
    issuer: issuer.subjectName,
    notBefore,
    notAfter: new Date(notBefore.getTime() + 10 * YEAR_MS),
    publicKey,
    signingKey: authority.privateKey,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(issuerKey),
    ],
  });
  return parsed(`${certificate.toString('pem').replace(/\r\n/g, '\n').trimEnd()}\n`);
}
