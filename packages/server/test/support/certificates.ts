// Certificate factory for every test that needs a CA, a device certificate or a TLS server
// identity. ECDSA P-256 by default (fast to generate); Ed25519 on request. Built with the same
// issuer the server uses for its own certificates.
import { issueCertificate, type IssuedCertificate, type KeyType } from '../../src/certificates/issue';
import type { x509 } from '../../src/certificates/x509-library';

export type { KeyType };

/** `{certPem, keyPem (PKCS#8), cert}` plus the key pair, so the certificate can sign others. */
export type TestCertificate = IssuedCertificate;

export interface TestCertificateOptions {
  keyType?: KeyType;
  notBefore?: Date;
  notAfter?: Date;
  organization?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

let nameCounter = 0;

export async function makeRootCa(options: TestCertificateOptions & { commonName?: string } = {}): Promise<TestCertificate> {
  nameCounter += 1;
  return issueCertificate({
    // A distinct name per root so "same name, different key" never happens by accident.
    subject: { commonName: options.commonName ?? `Test Root CA ${nameCounter} ${process.pid}`, organization: options.organization },
    isCa: true,
    ...pick(options),
  });
}

const sharedRoots = new Map<KeyType, Promise<TestCertificate>>();

/** One root per key type per test process, for tests that only need "some registered CA". */
export function sharedRootCa(keyType: KeyType = 'ecdsa-p256'): Promise<TestCertificate> {
  let root = sharedRoots.get(keyType);
  if (!root) {
    root = makeRootCa({ keyType, commonName: `Shared Test Root CA (${keyType}) ${process.pid}` });
    sharedRoots.set(keyType, root);
  }
  return root;
}

export async function makeIntermediateCa(
  issuer: TestCertificate,
  options: TestCertificateOptions & { commonName?: string } = {},
): Promise<TestCertificate> {
  nameCounter += 1;
  return issueCertificate({
    subject: { commonName: options.commonName ?? `Test Intermediate CA ${nameCounter} ${process.pid}`, organization: options.organization },
    issuer,
    isCa: true,
    ...pick(options),
  });
}

/** A device (client-auth) certificate; the CN is the device identifier. */
export async function makeLeafCertificate(issuer: TestCertificate, commonName: string, options: TestCertificateOptions = {}): Promise<TestCertificate> {
  return issueCertificate({ subject: { commonName, organization: options.organization }, issuer, clientAuth: true, ...pick(options) });
}

export const makeDeviceCertificate = makeLeafCertificate;

/** A device certificate whose subject is exactly `subject` (string types and all): for names the API must refuse. */
export async function makeLeafWithSubject(issuer: TestCertificate, subject: x509.JsonNameParams): Promise<TestCertificate> {
  return issueCertificate({ subject, issuer, clientAuth: true });
}

/** Another certificate for `ca`'s key and name, as a CA renewed with its key is. */
export async function reissueCa(ca: TestCertificate, commonName: string): Promise<TestCertificate> {
  return issueCertificate({ subject: { commonName }, isCa: true, keys: ca.keys, keyType: ca.keyType });
}

/** The certificate a CA registrant signs to prove key possession: CN = verification code. */
export async function makeVerificationCertificate(ca: TestCertificate, code: string, options: TestCertificateOptions = {}): Promise<TestCertificate> {
  return issueCertificate({ subject: code, issuer: ca, ...pick(options) });
}

/** Valid for a day that ended a day ago. Pass `isCa` for an expired CA. */
export async function makeExpiredCertificate(
  issuer: TestCertificate | null,
  commonName: string,
  options: TestCertificateOptions & { isCa?: boolean } = {},
): Promise<TestCertificate> {
  const now = Date.now();
  return issueCertificate({
    subject: commonName,
    issuer: issuer ?? undefined,
    isCa: options.isCa,
    clientAuth: !options.isCa,
    keyType: options.keyType,
    notBefore: new Date(now - 2 * DAY_MS),
    notAfter: new Date(now - DAY_MS),
  });
}

/** An end-entity certificate signed by its own key (not a CA): what a device must not get away with. */
export async function makeSelfSignedLeaf(commonName: string, options: TestCertificateOptions = {}): Promise<TestCertificate> {
  return issueCertificate({ subject: commonName, clientAuth: true, ...pick(options) });
}

/** A TLS server certificate for localhost / 127.0.0.1 (plus `hostnames`), signed by `issuer`. */
export async function makeServerCertificate(
  issuer: TestCertificate,
  options: TestCertificateOptions & { hostnames?: string[] } = {},
): Promise<TestCertificate> {
  const names = [...new Set([...(options.hostnames ?? []), 'localhost', '127.0.0.1'])];
  return issueCertificate({ subject: names[0], issuer, serverNames: names, ...pick(options) });
}

/** base64 of the PEM text: the form the API's `certificate` fields take. */
export function toBase64Pem(pem: string): string {
  return Buffer.from(pem, 'utf8').toString('base64');
}

function pick(options: TestCertificateOptions) {
  return { keyType: options.keyType, notBefore: options.notBefore, notAfter: options.notAfter };
}
