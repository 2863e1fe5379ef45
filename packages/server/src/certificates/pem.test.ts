import { describe, expect, it } from 'vitest';
import { makeLeafCertificate, makeRootCa, sharedRootCa, toBase64Pem } from '../../test/support/certificates';
import { hexSerialToDecimal, MAX_CERTIFICATE_INPUT_LENGTH, parseCertificateDer, parseCertificateInput } from './pem';

describe('parseCertificateInput', () => {
  it('accepts base64 of a PEM, raw PEM and base64 of DER alike', async () => {
    const root = await sharedRootCa();
    const viaBase64Pem = parseCertificateInput(toBase64Pem(root.certPem));
    const viaPem = parseCertificateInput(root.certPem);
    const viaBase64Der = parseCertificateInput(root.cert.raw.toString('base64'));
    for (const result of [viaBase64Pem, viaPem, viaBase64Der]) {
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.value.der.equals(root.cert.raw)).toBe(true);
    }
  });

  it('summarises a device certificate', async () => {
    const root = await sharedRootCa();
    const device = await makeLeafCertificate(root, 'device-0042');
    const result = parseCertificateInput(toBase64Pem(device.certPem));
    if (!result.ok) throw new Error(result.reason);
    const summary = result.value.summary;
    const rootSummary = parseCertificateInput(root.certPem);
    if (!rootSummary.ok) throw new Error(rootSummary.reason);

    expect(summary.commonName).toBe('device-0042');
    expect(summary.issuerName).toBe(rootSummary.value.summary.subjectName);
    expect(summary.serial).toBe(BigInt(`0x${device.cert.serialNumber}`).toString(10));
    expect(summary.serial).toMatch(/^[1-9][0-9]*$/);
    expect(summary.fingerprintSha256).toBe(device.cert.fingerprint256.replace(/:/g, ''));
    expect(summary.fingerprintSha256).toMatch(/^[0-9A-F]{64}$/);
    expect(summary.notBefore).toEqual(new Date(device.cert.validFrom));
    expect(summary.notAfter).toEqual(new Date(device.cert.validTo));
    expect(summary.subjectKeyIdentifier).toMatch(/^[0-9A-F]+$/);
    expect(summary.authorityKeyIdentifier).toBe(rootSummary.value.summary.subjectKeyIdentifier);
    expect(summary.isCa).toBe(false);
    expect(summary.keyAlgorithm).toBe('ecdsa-p256');
    expect(rootSummary.value.summary.isCa).toBe(true);
    expect(rootSummary.value.summary.keyUsageAllowsCertSign).toBe(true);
  });

  it('names Ed25519 and RSA keys', async () => {
    const ed = await makeRootCa({ keyType: 'ed25519' });
    const rsa = await makeRootCa({ keyType: 'rsa-2048' });
    const edResult = parseCertificateInput(ed.certPem);
    const rsaResult = parseCertificateInput(rsa.certPem);
    expect(edResult.ok && edResult.value.summary.keyAlgorithm).toBe('ed25519');
    expect(rsaResult.ok && rsaResult.value.summary.keyAlgorithm).toBe('rsa-2048');
  });

  it('answers typed reasons for bad input', async () => {
    const root = await sharedRootCa();
    const other = await makeRootCa();
    expect(parseCertificateInput(undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(parseCertificateInput('   ')).toEqual({ ok: false, reason: 'missing' });
    expect(parseCertificateInput('not base64 at all!')).toEqual({ ok: false, reason: 'malformed' });
    expect(parseCertificateInput(Buffer.from('hello world').toString('base64'))).toEqual({ ok: false, reason: 'malformed' });
    expect(parseCertificateInput(toBase64Pem(root.keyPem))).toEqual({ ok: false, reason: 'malformed' });
    const corrupted = root.certPem.replace(/[A-Za-z]{8}/, 'AAAAAAAA');
    expect(parseCertificateInput(corrupted)).toEqual({ ok: false, reason: 'malformed' });
    expect(parseCertificateInput(toBase64Pem(root.certPem + other.certPem))).toEqual({ ok: false, reason: 'multiple_certificates' });
    expect(parseCertificateInput('A'.repeat(MAX_CERTIFICATE_INPUT_LENGTH + 1))).toEqual({ ok: false, reason: 'too_large' });
    expect(parseCertificateDer(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x01]))).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('hexSerialToDecimal', () => {
  it('converts serials beyond 2^53 exactly', () => {
    expect(hexSerialToDecimal('0A')).toBe('10');
    expect(hexSerialToDecimal('7FFFFFFFFFFFFFFFFFFF')).toBe('604462909807314587353087');
  });
});
