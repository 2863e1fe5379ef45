import { describe, expect, it } from 'vitest';
import { makeLeafCertificate, sharedRootCa } from '../../test/support/certificates';
import { deviceCertificateFieldProblems } from './field-limits';
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
