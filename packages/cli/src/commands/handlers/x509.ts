/**
 * `canopy x509`: certificates made locally, no server involved: a CA, the verification
 * certificate that proves you hold the CA key (CN = a code from `ca-certificates
 * verification-code`), and device certificates. Ed25519 or ECDSA P-256.
 */
import 'reflect-metadata';
import { randomBytes, webcrypto } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import { UsageError } from '../../errors';
import type { ActionRun, ResourceDef } from '../action';
import { int, str } from '../fields';
import { generateKeys, importPrivateKey, KEY_ALGORITHMS, privateKeyPem, signingAlgorithm, type KeyAlgorithm } from './x509-keys';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const DAY = 86_400_000;
const serial = () => {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f; // a positive serial number
  return bytes.toString('hex');
};
/** Common names go into a distinguished-name string; escape its special characters. */
const dn = (commonName: string) => `CN=${commonName.replace(/([,+"\\<>;=])/g, '\\$1')}`;

function readFile(flag: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--${flag}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
}

function writeOutputs(outDir: string, name: string, certificate: x509.X509Certificate, keyPem: string | null) {
  fs.mkdirSync(outDir, { recursive: true });
  const certificatePath = path.join(outDir, `${name}.pem`);
  fs.writeFileSync(certificatePath, certificate.toString('pem') + '\n');
  let keyPath: string | null = null;
  if (keyPem) {
    keyPath = path.join(outDir, `${name}-key.pem`);
    fs.writeFileSync(keyPath, keyPem, { mode: 0o600 });
    fs.chmodSync(keyPath, 0o600);
  }
  return { certificate_path: certificatePath, private_key_path: keyPath, subject: certificate.subject, serial_number: certificate.serialNumber, not_after: certificate.notAfter.toISOString() };
}

function algorithmOf(options: Record<string, unknown>): KeyAlgorithm {
  const value = (options.algorithm as string | undefined) ?? 'ecdsa-p256';
  if (!KEY_ALGORITHMS.includes(value as KeyAlgorithm)) throw new UsageError(`--algorithm must be one of ${KEY_ALGORITHMS.join(', ')}`);
  return value as KeyAlgorithm;
}

function days(options: Record<string, unknown>, fallback: number): number {
  const value = options.days === undefined ? fallback : Number(options.days);
  if (!Number.isInteger(value) || value < 1) throw new UsageError('--days must be a positive integer');
  return value;
}

async function createCa({ options }: ActionRun) {
  const algorithm = algorithmOf(options);
  const keys = await generateKeys(algorithm);
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: dn((options.commonName as string | undefined) ?? 'Canopy device CA'),
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + days(options, 3650) * DAY),
    signingAlgorithm: signingAlgorithm(algorithm),
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return writeOutputs((options.outDir as string | undefined) ?? '.', (options.name as string | undefined) ?? 'ca', certificate, await privateKeyPem(keys.privateKey));
}

/** An end-entity certificate signed by the CA: the verification certificate and device certificates. */
async function issue(options: Record<string, unknown>, commonName: string, name: string, validityDays: number) {
  if (!options.caCertificate || !options.caKey) throw new UsageError('--ca-certificate and --ca-key are required');
  const ca = new x509.X509Certificate(readFile('ca-certificate', options.caCertificate as string));
  const { key: caKey, algorithm: caAlgorithm } = await importPrivateKey(readFile('ca-key', options.caKey as string));
  const keys = await generateKeys(algorithmOf(options));
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: dn(commonName),
    issuer: ca.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(Math.min(now + validityDays * DAY, ca.notAfter.getTime())),
    signingAlgorithm: signingAlgorithm(caAlgorithm),
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(await ca.publicKey.export()),
    ],
  });
  return writeOutputs((options.outDir as string | undefined) ?? '.', name, certificate, await privateKeyPem(keys.privateKey));
}

const ALGORITHM = str('algorithm', 'Key type: ecdsa-p256 (default) or ed25519.', { choices: KEY_ALGORITHMS });
const OUT_DIR = str('out-dir', 'Directory for NAME.pem and NAME-key.pem (key mode 0600); default the current directory.');
const CA_FILES = [
  str('ca-certificate', 'PEM file of the CA certificate.', { required: true, example: 'ca.pem' }),
  str('ca-key', 'PEM file of the CA private key.', { required: true, example: 'ca-key.pem' }),
];

export const X509_RESOURCE: ResourceDef = {
  command: 'x509',
  description: 'Local certificate tools: a CA, its verification certificate, and device certificates (nothing is sent to the server).',
  actions: [
    {
      name: 'create-ca',
      summary: 'Create a self-signed CA certificate and its private key.',
      extra: [str('common-name', 'CN of the CA (default "Canopy device CA").'), ALGORITHM, int('days', 'Validity in days (default 3650).'), OUT_DIR, str('name', 'File name stem (default ca).')],
      examples: ['canopy x509 create-ca --common-name "Acme fleet CA" --algorithm ed25519 --out-dir ./pki'],
      handler: (run) => createCa(run),
    },
    {
      name: 'create-verification-certificate',
      summary: 'Create the certificate (CN = verification code) that proves you hold the CA key, for ca-certificates create.',
      extra: [...CA_FILES, str('verification-code', 'Code from: canopy ca-certificates verification-code.', { required: true, example: 'ABCD1234' }), ALGORITHM, OUT_DIR, str('name', 'File name stem (default verification).')],
      examples: ['canopy x509 create-verification-certificate --ca-certificate pki/ca.pem --ca-key pki/ca-key.pem --verification-code ABCD1234 --out-dir ./pki'],
      handler: ({ options }) => issue(options, options.verificationCode as string, (options.name as string | undefined) ?? 'verification', 7),
    },
    {
      name: 'create-device-certificate',
      summary: 'Create a device certificate (CN = device identifier) signed by the CA.',
      extra: [...CA_FILES, str('common-name', 'CN: the device identifier.', { required: true, example: 'gw-0001' }), ALGORITHM, int('days', 'Validity in days (default 365, never past the CA).'), OUT_DIR, str('name', 'File name stem (default the common name).')],
      examples: ['canopy x509 create-device-certificate --ca-certificate pki/ca.pem --ca-key pki/ca-key.pem --common-name gw-0001 --algorithm ed25519 --out-dir ./pki'],
      handler: ({ options }) => issue(options, options.commonName as string, (options.name as string | undefined) ?? (options.commonName as string), days(options, 365)),
    },
  ],
};
