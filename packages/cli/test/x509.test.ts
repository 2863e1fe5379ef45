/** canopy x509 makes a CA, a verification certificate and device certificates that chain to it. */
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canopy } from './support/run-canopy';
import { temporaryConfigDir } from './support/server';

describe.each(['ed25519', 'ecdsa-p256'])('x509 with %s', (algorithm) => {
  it('CA, verification certificate and device certificate chain to the CA', async () => {
    const dir = temporaryConfigDir();
    const ca = await canopy(['x509', 'create-ca', '--common-name', 'Test CA', '--algorithm', algorithm, '--out-dir', dir]);
    expect(ca.code).toBe(0);
    expect(fs.statSync(path.join(dir, 'ca-key.pem')).mode & 0o777).toBe(0o600);
    const caCert = new X509Certificate(fs.readFileSync(path.join(dir, 'ca.pem')));
    expect(caCert.ca).toBe(true);
    expect(caCert.subject).toContain('CN=Test CA');

    const caFiles = ['--ca-certificate', path.join(dir, 'ca.pem'), '--ca-key', path.join(dir, 'ca-key.pem'), '--out-dir', dir];
    const verification = await canopy(['x509', 'create-verification-certificate', ...caFiles, '--verification-code', 'CODE1234']);
    expect(verification.code).toBe(0);
    const verificationCert = new X509Certificate(fs.readFileSync(path.join(dir, 'verification.pem')));
    expect(verificationCert.subject).toContain('CN=CODE1234');
    expect(verificationCert.verify(caCert.publicKey)).toBe(true);

    const device = await canopy(['x509', 'create-device-certificate', ...caFiles, '--common-name', 'gw-0001', '--algorithm', algorithm]);
    expect(device.code).toBe(0);
    expect(device.json.certificate_path).toBe(path.join(dir, 'gw-0001.pem'));
    const deviceCert = new X509Certificate(fs.readFileSync(path.join(dir, 'gw-0001.pem')));
    expect(deviceCert.checkIssued(caCert)).toBe(true);
    expect(deviceCert.verify(caCert.publicKey)).toBe(true);
    expect(deviceCert.ca).toBe(false);
  });
});

it('x509 usage errors exit 2', async () => {
  expect((await canopy(['x509', 'create-device-certificate', '--common-name', 'x', '--ca-certificate', '/nope.pem', '--ca-key', '/nope.pem'])).code).toBe(2);
  expect((await canopy(['x509', 'create-ca', '--algorithm', 'rsa'])).code).toBe(2);
});
