// Follows the documented CA registration steps with the real openssl CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  base64OfFile,
  makeOpensslWorkdir,
  opensslCreateCa,
  opensslCreateDeviceCertificate,
  opensslCreateVerificationCertificate,
} from '../../test/support/openssl';
import { verifyClientCertificateChain } from './chain';
import { parseCertificateInput } from './pem';
import { checkProofOfPossession } from './proof-of-possession';

describe('proof of possession with certificates made by the openssl CLI', () => {
  let workdir: Awaited<ReturnType<typeof makeOpensslWorkdir>>;
  beforeAll(async () => {
    workdir = await makeOpensslWorkdir();
  });
  afterAll(async () => {
    await workdir.remove();
  });

  it('accepts the docs procedure and then the devices that CA issues', async () => {
    const code = '0F1E2D3C4B5A69788796A5B4C3D2E1F0';
    const ca = await opensslCreateCa(workdir.dir);
    const verification = await opensslCreateVerificationCertificate(workdir.dir, ca, code);

    const caInput = parseCertificateInput(await base64OfFile(ca.certPath));
    const verificationInput = parseCertificateInput(await base64OfFile(verification.certPath));
    if (!caInput.ok || !verificationInput.ok) throw new Error('openssl output did not parse');
    expect(caInput.value.summary.isCa).toBe(true);
    expect(verificationInput.value.summary.commonName).toBe(code);

    const proof = checkProofOfPossession({ ca: caInput.value, verification: verificationInput.value, verificationCodes: [code] });
    expect(proof).toEqual({ ok: true, matchedCode: code });

    const device = await opensslCreateDeviceCertificate(workdir.dir, ca, 'docs-device-1');
    const deviceInput = parseCertificateInput(device.certPem);
    if (!deviceInput.ok) throw new Error(deviceInput.reason);
    const registered = { certificate: caInput.value.certificate };
    const chain = await verifyClientCertificateChain({
      leaf: deviceInput.value.certificate,
      findCaCandidates: async (key) =>
        ('authorityKeyIdentifier' in key
          ? key.authorityKeyIdentifier === caInput.value.summary.subjectKeyIdentifier
          : key.issuerName === caInput.value.summary.subjectName)
          ? [registered]
          : [],
    });
    expect(chain.ok).toBe(true);
  });
});
