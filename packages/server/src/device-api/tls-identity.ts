/**
 * The device API's own TLS identity: from the configured files, or a private CA and server
 * certificate generated at first start into `<dataDir>/device-api/` and reused on every later
 * start, so devices can pin the CA (`ca.pem`) once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { generateServerIdentity } from '../certificates/self-signed';
import type { Config } from '../config';

export interface DeviceTlsIdentity {
  certPem: string;
  keyPem: string;
  /** What devices should trust: the CA of the server certificate. */
  caPem: string;
  source: 'config' | 'generated';
}

const FILES = { caCert: 'ca.pem', caKey: 'ca.key', serverCert: 'server.pem', serverKey: 'server.key' } as const;

export function generatedIdentityDir(dataDir: string): string {
  return path.join(dataDir, 'device-api');
}

export async function loadDeviceTlsIdentity(config: Config): Promise<DeviceTlsIdentity> {
  const { certPath, keyPath, caPath } = config.deviceTls;
  if (certPath && keyPath) {
    const certPem = fs.readFileSync(certPath, 'utf8');
    return { certPem, keyPem: fs.readFileSync(keyPath, 'utf8'), caPem: caPath ? fs.readFileSync(caPath, 'utf8') : certPem, source: 'config' };
  }
  return loadOrGenerate(generatedIdentityDir(config.dataDir), config.deviceTls.hostnames);
}

async function loadOrGenerate(dir: string, hostnames: string[]): Promise<DeviceTlsIdentity> {
  const file = (name: keyof typeof FILES) => path.join(dir, FILES[name]);
  if (!fs.existsSync(file('serverCert')) || !fs.existsSync(file('serverKey')) || !fs.existsSync(file('caCert'))) {
    const identity = await generateServerIdentity({ hostnames });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Written key-first and certificate-last, so a crash midway regenerates rather than pairing
    // a new certificate with a stale key.
    fs.writeFileSync(file('caKey'), identity.caKeyPem, { mode: 0o600 });
    fs.writeFileSync(file('serverKey'), identity.serverKeyPem, { mode: 0o600 });
    fs.writeFileSync(file('caCert'), identity.caCertPem);
    fs.writeFileSync(file('serverCert'), identity.serverCertPem);
  }
  return {
    certPem: fs.readFileSync(file('serverCert'), 'utf8'),
    keyPem: fs.readFileSync(file('serverKey'), 'utf8'),
    caPem: fs.readFileSync(file('caCert'), 'utf8'),
    source: 'generated',
  };
}
