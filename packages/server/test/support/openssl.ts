// The documented CA-registration procedure, run with the real `openssl` CLI exactly as a user
// would type it, so tests prove that what the docs tell people to do is accepted. Each step is
// its own function so API tests can stop after any step (e.g. register, then issue devices).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface OpensslCertificate {
  certPath: string;
  keyPath: string;
  certPem: string;
  keyPem: string;
}

/** A scratch directory for the files the docs' commands create; call `remove()` in afterAll. */
export async function makeOpensslWorkdir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'canopy-openssl-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export async function openssl(dir: string, args: string[]): Promise<string> {
  const { stdout } = await run('openssl', args, { cwd: dir });
  return stdout;
}

/** Docs step 1: `openssl ecparam -genkey` + `openssl req -x509` -> a P-256 CA valid `days`. */
export async function opensslCreateCa(dir: string, options: { name?: string; commonName?: string; days?: number } = {}): Promise<OpensslCertificate> {
  const name = options.name ?? 'ca';
  const keyPath = join(dir, `${name}.key`);
  const certPath = join(dir, `${name}.pem`);
  await openssl(dir, ['ecparam', '-genkey', '-name', 'prime256v1', '-noout', '-out', keyPath]);
  await openssl(dir, [
    'req', '-x509', '-new', '-key', keyPath, '-sha256', '-days', String(options.days ?? 3650),
    '-subj', `/CN=${options.commonName ?? 'Canopy Docs Example CA'}`,
    // Spelled out rather than left to the distribution's openssl.cnf defaults.
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    '-out', certPath,
  ]);
  return readPair(certPath, keyPath);
}

/**
 * Docs steps for a certificate signed by the CA: `openssl ecparam -genkey`, `openssl req -new`
 * (CSR with the given CN), `openssl x509 -req -CA ...`. Used for the verification certificate
 * (CN = verification code) and for device certificates (CN = device identifier).
 */
export async function opensslIssueCertificate(
  dir: string,
  ca: OpensslCertificate,
  options: { name: string; commonName: string; days?: number },
): Promise<OpensslCertificate> {
  const keyPath = join(dir, `${options.name}.key`);
  const csrPath = join(dir, `${options.name}.csr`);
  const certPath = join(dir, `${options.name}.pem`);
  await openssl(dir, ['ecparam', '-genkey', '-name', 'prime256v1', '-noout', '-out', keyPath]);
  await openssl(dir, ['req', '-new', '-key', keyPath, '-subj', `/CN=${options.commonName}`, '-out', csrPath]);
  await openssl(dir, [
    'x509', '-req', '-in', csrPath, '-CA', ca.certPath, '-CAkey', ca.keyPath, '-CAcreateserial',
    '-days', String(options.days ?? 365), '-sha256', '-out', certPath,
  ]);
  return readPair(certPath, keyPath);
}

export function opensslCreateVerificationCertificate(dir: string, ca: OpensslCertificate, code: string): Promise<OpensslCertificate> {
  return opensslIssueCertificate(dir, ca, { name: 'verification', commonName: code, days: 30 });
}

export function opensslCreateDeviceCertificate(dir: string, ca: OpensslCertificate, identifier: string): Promise<OpensslCertificate> {
  return opensslIssueCertificate(dir, ca, { name: `device-${identifier.replace(/[^A-Za-z0-9_-]/g, '_')}`, commonName: identifier });
}

/** `base64 -w0 ca.pem`: how the docs turn a PEM file into the API's `certificate` value. */
export async function base64OfFile(path: string): Promise<string> {
  return (await readFile(path)).toString('base64');
}

async function readPair(certPath: string, keyPath: string): Promise<OpensslCertificate> {
  const [certPem, keyPem] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
  return { certPath, keyPath, certPem, keyPem };
}
