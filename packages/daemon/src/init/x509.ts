/**
 * The few X.509 certificates `canopy-daemon init` makes (a CA, its proof of possession, one
 * device certificate), DER-encoded here on node:crypto: ECDSA P-256, SHA-256. A library (the
 * simulator's @peculiar/x509) would grow the device's one-file daemon from about 120 KB to 900.
 */
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

export interface Issued {
  certPem: string;
  keyPem: string;
  /** DER of the subject Name, the issuer of what this one signs. */
  subject: Buffer;
  publicKey: KeyObject;
  privateKey: KeyObject;
  keyId: Buffer;
}

function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const n = body.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}
const seq = (...parts: Buffer[]) => tlv(0x30, ...parts);
const octets = (bytes: Buffer) => tlv(0x04, bytes);
const bits = (bytes: Buffer, unused = 0) => tlv(0x03, Buffer.from([unused]), bytes);
const TRUE = Buffer.from([0x01, 0x01, 0xff]);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function time(date: Date): Buffer {
  const text = date.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  // RFC 5280: UTCTime (two-digit year) through 2049, GeneralizedTime after.
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(text.slice(2))) : tlv(0x18, Buffer.from(text));
}

const name = (commonName: string) => seq(tlv(0x31, seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
const extension = (id: string, critical: boolean, value: Buffer) => seq(oid(id), ...(critical ? [TRUE] : []), octets(value));
const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));
const pem = (label: string, der: Buffer) => `-----BEGIN ${label}-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END ${label}-----\n`;

/**
 * A CA (issuer null: self-signed) or a client certificate, valid from a minute ago for `days`,
 * for a new P-256 key or the given one (`canopy-daemon enrol` keeps its key between claims).
 */
export function issue(commonName: string, issuer: Issued | null, options: { ca: boolean; days: number; privateKey?: KeyObject }): Issued {
  const privateKey = options.privateKey ?? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const publicKey = createPublicKey(privateKey);
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const keyId = createHash('sha1').update(spki.subarray(-65)).digest();
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x01;
  const subject = name(commonName);
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + options.days * 86_400_000);
  const extensions = [
    extension('2.5.29.19', true, options.ca ? seq(TRUE) : seq()),
    // keyUsage: keyCertSign and cRLSign for a CA, digitalSignature for a device.
    extension('2.5.29.15', true, options.ca ? bits(Buffer.from([0x06]), 1) : bits(Buffer.from([0x80]), 7)),
    extension('2.5.29.14', false, octets(keyId)),
    extension('2.5.29.35', false, seq(tlv(0x80, issuer?.keyId ?? keyId))),
    ...(options.ca ? [] : [extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.2')))]),
  ];
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, serial),
    ECDSA_SHA256,
    issuer?.subject ?? subject,
    seq(time(notBefore), time(notAfter)),
    subject,
    spki,
    tlv(0xa3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, issuer?.privateKey ?? privateKey);
  const der = seq(tbs, ECDSA_SHA256, bits(signature));
  return { certPem: pem('CERTIFICATE', der), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), subject, publicKey, privateKey, keyId };
}
