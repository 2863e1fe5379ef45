import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issue } from './x509.ts';

describe('the certificates init makes', () => {
  const ca = issue('Trial CA', null, { ca: true, days: 3650 });
  const device = issue('trial-0001', ca, { ca: false, days: 365 });

  it('a self-signed CA that node reads as a CA', () => {
    const cert = new X509Certificate(ca.certPem);
    expect(cert.ca).toBe(true);
    expect(cert.subject).toBe('CN=Trial CA');
    expect(cert.issuer).toBe('CN=Trial CA');
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.keyUsage).toBeUndefined(); // node lists extended key usage only; none on a CA
    expect(cert.checkPrivateKey(ca.privateKey)).toBe(true);
  });

  it('a client certificate the CA issued, with its key', () => {
    const cert = new X509Certificate(device.certPem);
    const issuer = new X509Certificate(ca.certPem);
    expect(cert.ca).toBe(false);
    expect(cert.subject).toBe('CN=trial-0001');
    expect(cert.checkIssued(issuer)).toBe(true);
    expect(cert.verify(issuer.publicKey)).toBe(true);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(cert.checkPrivateKey(device.privateKey)).toBe(true);
    expect(device.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000;
    expect(Math.round(days)).toBe(365);
  });

  it('long names and far dates still encode (multi-byte lengths, GeneralizedTime)', () => {
    const cert = new X509Certificate(issue('x'.repeat(200), ca, { ca: false, days: 40 * 365 }).certPem);
    expect(cert.subject).toBe(`CN=${'x'.repeat(200)}`);
    expect(new Date(cert.validTo).getUTCFullYear()).toBeGreaterThan(2050);
  });
});
