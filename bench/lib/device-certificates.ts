/**
 * Certificates for the device API benchmark: a device CA, many device certificates sharing one
 * key pair (the keys are not what is measured; signing 10,000 certificates stays fast), and a
 * server certificate for the hello-world baseline.
 */
import { createHash } from 'node:crypto';
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

/**
 * `count` registered devices of which the first `withCertificates` get a real certificate (the
 * ones the load connects with). The others are registered with a synthetic fingerprint: they
 * fill the tables and indexes like a real fleet, and signing 10,000 certificates would take
 * minutes on a busy 2-core machine for nothing the benchmark measures.
 */
export async function makeDevices(ca: IssuedCertificate, count: number, withCertificates: number): Promise<BenchDevice[]> {
  const first = await issueCertificate({ subject: 'bench-device-0', issuer: ca, clientAuth: true });
  const devices: BenchDevice[] = [];
  for (let i = withCertificates; i < count; i++) {
    devices.push({ ...describe(first, first.keyPem), identifier: `bench-device-${i}`, fingerprint: createHash('sha256').update(`bench-device-${i}`).digest('hex').toUpperCase() });
  }
  for (let i = 0; i < Math.min(count, withCertificates); i++) {
    const issued = i === 0 ? first : await issueCertificate({ subject: `bench-device-${i}`, issuer: ca, clientAuth: true, keys: first.keys });
    devices.push({ ...describe(issued, first.keyPem), identifier: `bench-device-${i}` });
  }
  // Devices with real certificates last, so callers take them with slice(-n).
  return devices;
}

function describe(issued: IssuedCertificate, keyPem: string): Omit<BenchDevice, 'identifier'> {
  const summary = summarizeCertificate(issued.cert);
  return {
    certPem: issued.certPem,
    keyPem,
    fingerprint: summary.fingerprintSha256,
    serial: summary.serial,
    authorityKeyIdentifier: summary.authorityKeyIdentifier,
    notBefore: summary.notBefore.toISOString(),
    notAfter: summary.notAfter.toISOString(),
  };
}

export async function makeServerIdentity(): Promise<{ ca: IssuedCertificate; server: IssuedCertificate }> {
  const ca = await issueCertificate({ subject: 'Bench Server CA', isCa: true });
  const server = await issueCertificate({ subject: 'localhost', issuer: ca, serverNames: ['localhost', '127.0.0.1'] });
  return { ca, server };
}

export async function makeVerificationCertificate(ca: IssuedCertificate, code: string): Promise<IssuedCertificate> {
  return issueCertificate({ subject: code, issuer: ca });
}
