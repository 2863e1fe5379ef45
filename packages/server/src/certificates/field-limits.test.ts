import { describe, expect, it } from 'vitest';
import { makeLeafCertificate, sharedRootCa } from '../../test/support/certificates';
import { deviceCertificateFieldProblems, isCertificateText } from './field-limits';
import { summarizeCertificate, type CertificateSummary } from './pem';

describe('deviceCertificateFieldProblems', () => {
  it('accepts a CN of 64 characters and refuses 65 or none', async () => {
    const root = await sharedRootCa();
    const at = summarizeCertificate((await makeLeafCertificate(root, 'd'.repeat(64))).cert);
    const over = summarizeCertificate((await makeLeafCertificate(root, 'd'.repeat(65))).cert);
    expect(deviceCertificateFieldProblems(at)).toEqual([]);
    expect(deviceCertificateFieldProblems(over)).toEqual([{ reason: 'common_name_too_long', max: 64 }]);
    expect(deviceCertificateFieldProblems({ ...at, commonName: null })).toEqual([{ reason: 'common_name_missing' }]);
  });

  it('bounds the authority key identifier', async () => {
    const root = await sharedRootCa();
    const summary: CertificateSummary = summarizeCertificate((await makeLeafCertificate(root, 'device')).cert);
    expect(deviceCertificateFieldProblems({ ...summary, authorityKeyIdentifier: 'A'.repeat(257) })).toEqual([
      { reason: 'authority_key_identifier_too_long', max: 256 },
    ]);
    expect(deviceCertificateFieldProblems({ ...summary, authorityKeyIdentifier: null })).toEqual([]);
  });
});

describe('isCertificateText', () => {
  it('takes any printable text, emoji included, and refuses control characters and lone surrogates', () => {
    for (const text of ['sensor-0001', 'CN=Acme, O=Ünïcode', 'cam-📷', '']) expect(isCertificateText(text), text).toBe(true);
    for (const text of ['a\u0000b', 'a\u001fb', 'a\u007fb', 'a\u0085b', 'a\ud800', '\udc00a', 'a\udc00\ud800']) expect(isCertificateText(text), JSON.stringify(text)).toBe(false);
  });

  it('makes a CN with them a field problem of its own', async () => {
    const summary = summarizeCertificate((await makeLeafCertificate(await sharedRootCa(), 'device')).cert);
    expect(deviceCertificateFieldProblems({ ...summary, commonName: 'dev\u0000nul' })).toEqual([{ reason: 'common_name_invalid_characters' }]);
  });
});
