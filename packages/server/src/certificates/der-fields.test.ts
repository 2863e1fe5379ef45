// The direct DER read must agree with @peculiar/x509's full parse on every field it reads, for
// certificates from our own issuer and from the openssl command line as users make them.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeExpiredCertificate, makeIntermediateCa, makeLeafCertificate, makeRootCa, makeSelfSignedLeaf, makeServerCertificate } from '../../test/support/certificates';
import { makeOpensslWorkdir, openssl, opensslCreateCa, opensslCreateDeviceCertificate } from '../../test/support/openssl';
import { readDerFields } from './der-fields';
import { parseCertificateDer, summarizeCertificate } from './pem';
import { x509 } from './x509-library';

function fullParse(der: Buffer) {
  const detail = new x509.X509Certificate(der);
  const keyUsage = detail.getExtension(x509.KeyUsagesExtension);
  const authorityKeyId = detail.getExtension(x509.AuthorityKeyIdentifierExtension);
  return {
    notBefore: detail.notBefore,
    notAfter: detail.notAfter,
    subjectKeyIdentifier: detail.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId.toUpperCase() ?? null,
    authorityKeyIdentifier: authorityKeyId?.keyId ? authorityKeyId.keyId.toUpperCase() : null,
    isCa: detail.getExtension(x509.BasicConstraintsExtension)?.ca === true,
    keyUsageAllowsCertSign: !keyUsage || (keyUsage.usages & x509.KeyUsageFlags.keyCertSign) !== 0,
    commonName: detail.subjectName.getField('CN')[0] ?? null,
  };
}

let workdir: Awaited<ReturnType<typeof makeOpensslWorkdir>>;
beforeAll(async () => {
  workdir = await makeOpensslWorkdir();
});
afterAll(async () => {
  await workdir?.remove();
});

describe('readDerFields', () => {
  it('agrees with the full parse for our issuer’s certificates of every kind', async () => {
    const root = await makeRootCa();
    const rsaRoot = await makeRootCa({ keyType: 'rsa-2048' });
    const intermediate = await makeIntermediateCa(root);
    const certificates = [
      root,
      rsaRoot,
      intermediate,
      await makeLeafCertificate(intermediate, 'device-ünïcode-1'),
      await makeLeafCertificate(rsaRoot, 'device-rsa', { keyType: 'ed25519' }),
      await makeSelfSignedLeaf('self'),
      await makeExpiredCertificate(root, 'expired'),
      await makeServerCertificate(root),
      // After 2049 validity is a GeneralizedTime, before it a UTCTime.
      await makeLeafCertificate(root, 'long-lived', { notAfter: new Date('2061-03-04T05:06:07Z') }),
    ];
    for (const { cert } of certificates) expect(readDerFields(cert.raw), cert.subject).toEqual(fullParse(cert.raw));
  });

  it('agrees with the full parse for openssl-made certificates, with and without extensions', async () => {
    const ca = await opensslCreateCa(workdir.dir, { commonName: 'Docs CA, with "quotes"' });
    const device = await opensslCreateDeviceCertificate(workdir.dir, ca, 'sensor-7');
    // A bare certificate: no -addext, a multi-attribute subject, the CN in the middle.
    await openssl(workdir.dir, ['ecparam', '-genkey', '-name', 'prime256v1', '-noout', '-out', 'bare.key']);
    await openssl(workdir.dir, ['req', '-x509', '-new', '-key', 'bare.key', '-subj', '/C=DE/CN=bare/O=Org', '-days', '9000', '-noenc', '-config', '/dev/null', '-out', 'bare.pem']);
    const bare = await openssl(workdir.dir, ['x509', '-in', 'bare.pem']);
    for (const pem of [ca.certPem, device.certPem, bare]) {
      const cert = new X509Certificate(pem);
      expect(readDerFields(cert.raw), cert.subject).toEqual(fullParse(cert.raw));
    }
  });

  it('throws on bytes that are not a whole certificate', async () => {
    const root = await makeRootCa();
    expect(() => readDerFields(Buffer.from([0x30, 0x03, 0x02, 0x01]))).toThrow();
    expect(() => readDerFields(Buffer.from('not a certificate'))).toThrow();
    expect(() => readDerFields(root.cert.raw.subarray(0, root.cert.raw.length - 10))).toThrow();
  });
});

describe('summarizeCertificate', () => {
  it('decodes the names only when they are read, and they match the issuer’s', async () => {
    const root = await makeRootCa({ organization: 'Acme, Inc.' });
    const leaf = await makeLeafCertificate(root, 'dev-lazy');
    const summary = summarizeCertificate(new X509Certificate(leaf.cert.raw));
    expect(summary.commonName).toBe('dev-lazy');
    expect(summary.issuerName).toBe(summarizeCertificate(root.cert).subjectName);
    expect(summary.issuerName).toBe(new x509.X509Certificate(leaf.cert.raw).issuer);
    expect(summary.subjectName).toBe('CN=dev-lazy');
  });
});

describe('a UTF8String CN that is not UTF-8', () => {
  it('makes the certificate malformed, where a lenient decode would read U+FFFD', async () => {
    const root = await makeRootCa();
    const leaf = await makeLeafCertificate(root, 'dev-é');
    const der = Buffer.from(leaf.cert.raw);
    // é is C3 A9; C3 28 is no UTF-8 sequence. The signature no longer matters: the name is read first.
    const at = der.indexOf(Buffer.from('dev-é', 'utf8')) + 4;
    der[at + 1] = 0x28;
    expect(() => readDerFields(der)).toThrow();
    expect(parseCertificateDer(der)).toEqual({ ok: false, reason: 'malformed' });
  });
});
