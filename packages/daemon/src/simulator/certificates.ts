/**
 * The simulator's certificates: a CA of its own (registered with the server, JITP on) and one
 * ECDSA P-256 client certificate per virtual device, CN = its identifier. Built in-process with
 * @peculiar/x509 (Node's WebCrypto underneath); the real daemon never loads this module.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { randomBytes, webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto as never);

const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGN = { name: 'ECDSA', hash: 'SHA-256' };

export interface Issued {
  certPem: string;
  keyPem: string;
  keys: CryptoKeyPair;
  cert: x509.X509Certificate;
}

const pem = (text: string) => `${text.replace(/\r\n/g, '\n').trimEnd()}\n`;

async function issue(commonName: string, issuer: Issued | null, isCa: boolean): Promise<Issued> {
  const keys = (await webcrypto.subtle.generateKey(ECDSA, true, ['sign', 'verify'])) as CryptoKeyPair;
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const notBefore = new Date(Date.now() - 60_000);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    subject: [{ CN: [commonName] }],
    issuer: issuer ? issuer.cert.subjectName : [{ CN: [commonName] }],
    notBefore,
    notAfter: new Date(notBefore.getTime() + 30 * 86_400_000),
    publicKey: keys.publicKey,
    signingKey: (issuer?.keys ?? keys).privateKey,
    signingAlgorithm: SIGN,
    extensions: [
      new x509.BasicConstraintsExtension(isCa, undefined, true),
      new x509.KeyUsagesExtension(isCa ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign : x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create((issuer?.keys ?? keys).publicKey),
      ...(isCa ? [] : [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])]),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certPem: pem(cert.toString('pem')), keyPem: pem(x509.PemConverter.encode(pkcs8, 'PRIVATE KEY')), keys, cert };
}

export const makeCa = (name: string) => issue(name, null, true);
export const issueLeaf = (ca: Issued, commonName: string) => issue(commonName, ca, false);
