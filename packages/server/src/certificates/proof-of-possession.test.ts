import { describe, expect, it } from 'vitest';
import {
  makeExpiredCertificate,
  makeIntermediateCa,
  makeLeafCertificate,
  makeRootCa,
  makeVerificationCertificate,
  type TestCertificate,
} from '../../test/support/certificates';
import { parseCertificateInput, type ParsedCertificate } from './pem';
import { checkProofOfPossession } from './proof-of-possession';

const CODE = 'A1B2C3D4E5F60718293A4B5C6D7E8F90';

function parsed(certificate: TestCertificate): ParsedCertificate {
  const result = parseCertificateInput(certificate.certPem);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

describe('checkProofOfPossession', () => {
  it('accepts a CA and a verification certificate it signed with a live code', async () => {
    const ca = await makeRootCa();
    const verification = await makeVerificationCertificate(ca, CODE);
    const result = checkProofOfPossession({ ca: parsed(ca), verification: parsed(verification), verificationCodes: ['OTHER', CODE] });
    expect(result).toEqual({ ok: true, matchedCode: CODE });
  });

  it('accepts an Ed25519 CA and an intermediate CA', async () => {
    const root = await makeRootCa({ keyType: 'ed25519' });
    const intermediate = await makeIntermediateCa(root);
    for (const ca of [root, intermediate]) {
      const verification = await makeVerificationCertificate(ca, CODE);
      expect(checkProofOfPossession({ ca: parsed(ca), verification: parsed(verification), verificationCodes: [CODE] }).ok).toBe(true);
    }
  });

  it('refuses an expired CA', async () => {
    const ca = await makeRootCa({ notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2021-01-01T00:00:00Z') });
    const verification = await makeVerificationCertificate(ca, CODE, { notBefore: new Date('2020-06-01T00:00:00Z'), notAfter: new Date('2030-01-01T00:00:00Z') });
    const result = checkProofOfPossession({ ca: parsed(ca), verification: parsed(verification), verificationCodes: [CODE] });
    expect(result).toEqual({ ok: false, failures: [{ field: 'certificate', reason: 'ca_expired' }] });
  });

  it('refuses a certificate that is not a CA', async () => {
    const root = await makeRootCa();
    const leaf = await makeLeafCertificate(root, 'device-1');
    const verification = await makeVerificationCertificate(leaf, CODE);
    const result = checkProofOfPossession({ ca: parsed(leaf), verification: parsed(verification), verificationCodes: [CODE] });
    expect(result).toEqual({ ok: false, failures: [{ field: 'certificate', reason: 'not_a_ca' }] });
  });

  it('refuses a verification certificate signed by another key', async () => {
    const ca = await makeRootCa({ commonName: 'Same Name CA' });
    const impostor = await makeRootCa({ commonName: 'Same Name CA' });
    const verification = await makeVerificationCertificate(impostor, CODE);
    const result = checkProofOfPossession({ ca: parsed(ca), verification: parsed(verification), verificationCodes: [CODE] });
    expect(result).toEqual({ ok: false, failures: [{ field: 'verification_certificate', reason: 'verification_not_signed_by_ca' }] });
  });

  it('refuses a CN that is not a live code', async () => {
    const ca = await makeRootCa();
    const verification = await makeVerificationCertificate(ca, 'USED-OR-UNKNOWN');
    const result = checkProofOfPossession({ ca: parsed(ca), verification: parsed(verification), verificationCodes: [CODE] });
    expect(result).toEqual({ ok: false, failures: [{ field: 'verification_certificate', reason: 'verification_code_mismatch' }] });
    const none = checkProofOfPossession({ ca: parsed(ca), verification: parsed(verification), verificationCodes: [] });
    expect(none.ok).toBe(false);
  });

  it('refuses an expired verification certificate', async () => {
    const ca = await makeRootCa();
    const verification = await makeExpiredCertificate(ca, CODE);
    const result = checkProofOfPossession({ ca: parsed(ca), verification: parsed(verification), verificationCodes: [CODE] });
    expect(result).toEqual({ ok: false, failures: [{ field: 'verification_certificate', reason: 'verification_expired' }] });
  });

  it('reports every failing check at once', async () => {
    const root = await makeRootCa();
    const notCa = await makeExpiredCertificate(root, 'old-device');
    const stranger = await makeRootCa();
    const verification = await makeExpiredCertificate(stranger, 'WRONG');
    const result = checkProofOfPossession({ ca: parsed(notCa), verification: parsed(verification), verificationCodes: [CODE] });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.failures.map((failure) => failure.reason)).toEqual([
        'ca_expired',
        'not_a_ca',
        'verification_not_signed_by_ca',
        'verification_code_mismatch',
        'verification_expired',
      ]);
    }
  });

  it('judges validity at the given time', async () => {
    const ca = await makeRootCa();
    const verification = await makeVerificationCertificate(ca, CODE);
    const result = checkProofOfPossession({
      ca: parsed(ca),
      verification: parsed(verification),
      verificationCodes: [CODE],
      now: new Date(Date.now() - 24 * 60 * 60 * 1000),
    });
    expect(result).toEqual({
      ok: false,
      failures: [
        { field: 'certificate', reason: 'ca_not_yet_valid' },
        { field: 'verification_certificate', reason: 'verification_not_yet_valid' },
      ],
    });
  });
});
