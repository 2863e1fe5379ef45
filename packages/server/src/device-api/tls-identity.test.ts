import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { makeRootCa, makeServerCertificate } from '../../test/support/certificates';
import { loadConfig } from '../config';
import { generatedIdentityDir, loadDeviceTlsIdentity } from './tls-identity';

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-identity-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

describe('loadDeviceTlsIdentity', () => {
  it('generates a CA and server certificate at first start and reuses them afterwards', async () => {
    const dataDir = tempDir();
    const config = { ...loadConfig({ CANOPY_DEVICE_HOSTNAMES: 'devices.example.com' }), dataDir };
    const first = await loadDeviceTlsIdentity(config);
    expect(first.source).toBe('generated');
    const server = new X509Certificate(first.certPem);
    const ca = new X509Certificate(first.caPem);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.subjectAltName).toContain('DNS:devices.example.com');
    expect(server.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(fs.statSync(path.join(generatedIdentityDir(dataDir), 'server.key')).mode & 0o777).toBe(0o600);
    // ECDSA P-256, not RSA: the server signs every new device handshake with this key.
    expect(server.publicKey.asymmetricKeyType).toBe('ec');
    expect(server.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const second = await loadDeviceTlsIdentity(config);
    expect(second).toEqual(first);
  });

  it('uses the configured certificate and key, and the configured CA for devices to pin', async () => {
    const dir = tempDir();
    const ca = await makeRootCa();
    const server = await makeServerCertificate(ca);
    const files = { cert: path.join(dir, 'server.pem'), key: path.join(dir, 'server.key'), ca: path.join(dir, 'ca.pem') };
    fs.writeFileSync(files.cert, server.certPem);
    fs.writeFileSync(files.key, server.keyPem);
    fs.writeFileSync(files.ca, ca.certPem);
    const config = loadConfig({ CANOPY_DEVICE_TLS_CERT: files.cert, CANOPY_DEVICE_TLS_KEY: files.key, CANOPY_DEVICE_TLS_CA: files.ca, CANOPY_DATA_DIR: dir });
    const identity = await loadDeviceTlsIdentity(config);
    expect(identity).toEqual({ certPem: server.certPem, keyPem: server.keyPem, caPem: ca.certPem, source: 'config' });
    expect(fs.existsSync(generatedIdentityDir(dir))).toBe(false);
    expect(() => loadConfig({ CANOPY_DEVICE_TLS_CERT: files.cert })).toThrow(/together/);
  });
});
