/**
 * The few fields of an X.509 certificate that OpenSSL (node:crypto) does not expose, read
 * straight from the DER: validity, the key identifier, basicConstraints and keyUsage extensions,
 * and the subject's first CN when it is an ordinary string. A full ASN.1 parse with
 * @peculiar/x509 costs milliseconds per certificate, which the device API would pay on every
 * new device connection; this walk costs microseconds. It reads only what OpenSSL has already
 * accepted as a certificate, and throws on any structure it does not expect.
 */

interface Tlv {
  tag: number;
  /** Offset of the tag byte. */
  start: number;
  /** Offsets of the contents. */
  contentStart: number;
  end: number;
}

const TAG = { boolean: 0x01, integer: 0x02, bitString: 0x03, octetString: 0x04, oid: 0x06, utf8String: 0x0c, sequence: 0x30, set: 0x31, printableString: 0x13, ia5String: 0x16, utcTime: 0x17, generalizedTime: 0x18 };
const CONTEXT_0_CONSTRUCTED = 0xa0;
const CONTEXT_3_CONSTRUCTED = 0xa3;
const CONTEXT_0_PRIMITIVE = 0x80;

// DER of the object identifiers looked for, without tag and length.
const OID = {
  subjectKeyIdentifier: '551d0e',
  keyUsage: '551d0f',
  basicConstraints: '551d13',
  authorityKeyIdentifier: '551d23',
  commonName: '550403',
};

class DerError extends Error {}

function readTlv(der: Buffer, offset: number, limit: number): Tlv {
  if (offset + 2 > limit) throw new DerError('truncated');
  const tag = der[offset];
  // Multi-byte tags never occur in the parts of a certificate read here.
  if ((tag & 0x1f) === 0x1f) throw new DerError('unexpected tag');
  let length = der[offset + 1];
  let contentStart = offset + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4 || contentStart + octets > limit) throw new DerError('bad length');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + der[contentStart + i];
    contentStart += octets;
  }
  const end = contentStart + length;
  if (end > limit) throw new DerError('truncated');
  return { tag, start: offset, contentStart, end };
}

function childrenOf(der: Buffer, parent: Tlv): Tlv[] {
  const children: Tlv[] = [];
  for (let offset = parent.contentStart; offset < parent.end; ) {
    const child = readTlv(der, offset, parent.end);
    children.push(child);
    offset = child.end;
  }
  return children;
}

function expectTag(tlv: Tlv | undefined, tag: number): Tlv {
  if (!tlv || tlv.tag !== tag) throw new DerError(`expected tag ${tag}`);
  return tlv;
}

const contentHex = (der: Buffer, tlv: Tlv) => der.toString('hex', tlv.contentStart, tlv.end);

function decodeTime(der: Buffer, tlv: Tlv): Date {
  const text = der.toString('latin1', tlv.contentStart, tlv.end);
  // DER fixes both forms to whole seconds in UTC ("Z"); RFC 5280 reads a 2-digit year < 50 as 20xx.
  const match = tlv.tag === TAG.utcTime ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text) : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!match || (tlv.tag !== TAG.utcTime && tlv.tag !== TAG.generalizedTime)) throw new DerError('bad time');
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  const fullYear = tlv.tag === TAG.utcTime ? (year < 50 ? 2000 + year : 1900 + year) : year;
  return new Date(Date.UTC(fullYear, month - 1, day, hour, minute, second));
}

export interface DerFields {
  notBefore: Date;
  notAfter: Date;
  /** Upper-case hex; null when the extension is absent. */
  subjectKeyIdentifier: string | null;
  /** The keyIdentifier of the authority key identifier extension, upper-case hex; null when absent. */
  authorityKeyIdentifier: string | null;
  isCa: boolean;
  /** False only when a keyUsage extension is present and lacks keyCertSign. */
  keyUsageAllowsCertSign: boolean;
  /** The subject's first CN; null when there is none; undefined when its string type is not read here. */
  commonName: string | null | undefined;
}

/** Throws on DER that is not shaped like a certificate. */
export function readDerFields(der: Buffer): DerFields {
  const certificate = expectTag(readTlv(der, 0, der.length), TAG.sequence);
  const tbs = childrenOf(der, expectTag(childrenOf(der, certificate)[0], TAG.sequence));
  // version [0] is optional (v1 certificates); then serial, signature algorithm, issuer, validity, subject.
  const fields = tbs[0]?.tag === CONTEXT_0_CONSTRUCTED ? tbs.slice(1) : tbs;
  expectTag(fields[0], TAG.integer);
  const validity = childrenOf(der, expectTag(fields[3], TAG.sequence));
  const subject = expectTag(fields[4], TAG.sequence);
  const result: DerFields = {
    notBefore: decodeTime(der, validity[0]),
    notAfter: decodeTime(der, validity[1]),
    subjectKeyIdentifier: null,
    authorityKeyIdentifier: null,
    isCa: false,
    keyUsageAllowsCertSign: true,
    commonName: firstCommonName(der, subject),
  };
  const extensionsWrapper = fields.find((field) => field.tag === CONTEXT_3_CONSTRUCTED);
  if (extensionsWrapper) {
    const extensions = expectTag(childrenOf(der, extensionsWrapper)[0], TAG.sequence);
    for (const extension of childrenOf(der, extensions)) readExtension(der, childrenOf(der, expectTag(extension, TAG.sequence)), result);
  }
  return result;
}

function readExtension(der: Buffer, parts: Tlv[], into: DerFields): void {
  const oid = contentHex(der, expectTag(parts[0], TAG.oid));
  // critical BOOLEAN DEFAULT FALSE may sit between the identifier and the value.
  const wrapped = expectTag(parts[parts.length - 1], TAG.octetString);
  const value = readTlv(der, wrapped.contentStart, wrapped.end);
  switch (oid) {
    case OID.subjectKeyIdentifier:
      into.subjectKeyIdentifier = contentHex(der, expectTag(value, TAG.octetString)).toUpperCase();
      break;
    case OID.authorityKeyIdentifier: {
      const keyId = childrenOf(der, expectTag(value, TAG.sequence)).find((part) => part.tag === CONTEXT_0_PRIMITIVE);
      if (keyId) into.authorityKeyIdentifier = contentHex(der, keyId).toUpperCase();
      break;
    }
    case OID.basicConstraints: {
      const first = childrenOf(der, expectTag(value, TAG.sequence))[0];
      into.isCa = first?.tag === TAG.boolean && first.end > first.contentStart && der[first.contentStart] !== 0;
      break;
    }
    case OID.keyUsage: {
      const bits = expectTag(value, TAG.bitString);
      // The first content byte counts unused bits; keyCertSign is bit 5 of the first bits byte.
      into.keyUsageAllowsCertSign = bits.end - bits.contentStart > 1 && (der[bits.contentStart + 1] & 0x04) !== 0;
      break;
    }
  }
}

// Fatal: Buffer's decoder would turn invalid bytes into U+FFFD, so two different names would read
// the same. The full parse (pem.ts) then refuses the certificate as malformed.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeUtf8(bytes: Buffer): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new DerError('invalid UTF-8');
  }
}

/** Only UTF8String, PrintableString and IA5String are decoded; other string types answer undefined. */
function firstCommonName(der: Buffer, name: Tlv): string | null | undefined {
  for (const rdn of childrenOf(der, name)) {
    for (const attribute of childrenOf(der, expectTag(rdn, TAG.set))) {
      const [type, value] = childrenOf(der, expectTag(attribute, TAG.sequence));
      if (contentHex(der, expectTag(type, TAG.oid)) !== OID.commonName) continue;
      if (value?.tag === TAG.utf8String) return decodeUtf8(der.subarray(value.contentStart, value.end));
      if (value?.tag === TAG.printableString || value?.tag === TAG.ia5String) return der.toString('latin1', value.contentStart, value.end);
      return undefined;
    }
  }
  return null;
}
