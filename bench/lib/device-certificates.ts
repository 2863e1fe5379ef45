/**
 * Certificates for the device API benchmark: a device CA, many device certificates sharing one
 * key pair (the keys are not what is measured; signing 10,000 certificates stays fast), and a
 * server certificate for the hello-world baseline.
 */
import { issueCertificate, type IssuedCertificate } from '../../packages/server/src/certificates/issue';
import { summarizeCertificate } from '../../packages/server/src/certificates/pem';

export interface BenchDevice {
  identifier: string;
  certPem: string;
  keyPem: string;
  fingerprint: string;
  serial: string;
  authorityKeyIdentifier: string | null;
  notBefore: string;
  notAfter: string;
}

export async function makeDeviceCa(): Promise<IssuedCertificate> {
  return issueCertificate({ subject: { commonName: 'Bench Device CA', organization: 'Canopy Bench' }, isCa: true });
}

export async function makeDevices(ca: IssuedCertificate, count: number): Promise<BenchDevice[]> {
  const first = await issueCertificate({ subject: 'bench-device-0', issuer: ca, clientAuth: true });
  const devices: BenchDevice[] = [];
  for (let i = 0; i < count; i++) {
    const issued = i === 0 ? first : await issueCertificate({ subject: `bench-device-${i}`, issuer: ca, clientAuth: true, keys: first.keys });
    const summary = summarizeCertificate(issued.cert);
    devices.push({
      identifier: `bench-device-${i}`,
      certPem: issued.certPem,
      keyPem: first.keyPem,
      fingerprint: summary.fingerprintSha256,
      serial: summary.serial,
      authorityKeyIdentifier: summary.authorityKeyIdentifier,
      notBefore: summary.notBefore.toISOString(),
      notAfter: summary.notAfter.toISOString(),
    });
  }
  return devices;
}

export async function makeServerIdentity(): Promise<{ ca: IssuedCertificate; server: IssuedCertificate }> {
  const ca = await issueCertificate({ subject: 'Bench Server CA', isCa: true });
  const server = await issueCertificate({ subject: 'localhost', issuer: ca, serverNames: ['localhost', '127.0.0.1'] });
  return { ca, server };
}

export async function makeVerificationCertificate(ca: IssuedCertificate, code: string): Promise<IssuedCertificate> {
  return issueCertificate({ subject: code, issuer: ca });
}
