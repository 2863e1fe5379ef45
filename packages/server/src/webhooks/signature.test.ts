import { describe, expect, it } from 'vitest';
import { signatureHeader, signWebhook, verifyWebhook } from './signature';

// Vectors computed independently with:
//   printf '%s' '2025-06-11T05:04:10.081728Z{"version":1}' | openssl dgst -sha256 -hmac <secret>
const NEW_SECRET = '0123456789ABCDEF0123456789ABCDEF';
const OLD_SECRET = 'FEDCBA9876543210FEDCBA9876543210';
const PUBLISHED_AT = '2025-06-11T05:04:10.081728Z';
const BODY = '{"version":1}';
const NEW_SIGNATURE = 'E59769C5E8994D909D7EA337C1140740BCCD3C8B5C1510973877B7A62D210EEA';
const OLD_SIGNATURE = 'CE2D034C76C08CEF2778B4D98C9C9B7452D7A2A425288FCEF7BF4EF1B018654E';
const AT_PUBLICATION = new Date(PUBLISHED_AT);

describe('webhook signatures', () => {
  it('matches the reference vectors: upper-case hex HMAC-SHA256 over published-at + body', () => {
    expect(signWebhook(NEW_SECRET, PUBLISHED_AT, BODY)).toBe(NEW_SIGNATURE);
    expect(signWebhook(OLD_SECRET, PUBLISHED_AT, Buffer.from(BODY))).toBe(OLD_SIGNATURE);
  });

  it('sends both signatures while a rolled secret lives, new first', () => {
    expect(signatureHeader([NEW_SECRET, OLD_SECRET], PUBLISHED_AT, BODY)).toBe(`${NEW_SIGNATURE},${OLD_SIGNATURE}`);
    expect(signatureHeader([NEW_SECRET], PUBLISHED_AT, BODY)).toBe(NEW_SIGNATURE);
  });

  it('verifies with either secret, any case, either position', () => {
    const header = `${NEW_SIGNATURE},${OLD_SIGNATURE}`;
    expect(verifyWebhook(NEW_SECRET, PUBLISHED_AT, BODY, header, 300, AT_PUBLICATION)).toBe(true);
    expect(verifyWebhook([OLD_SECRET], PUBLISHED_AT, BODY, header, 300, AT_PUBLICATION)).toBe(true);
    expect(verifyWebhook(NEW_SECRET, PUBLISHED_AT, BODY, NEW_SIGNATURE.toLowerCase(), 300, AT_PUBLICATION)).toBe(true);
  });

  it('rejects a changed body, a changed time, a wrong secret, junk and missing headers', () => {
    expect(verifyWebhook(NEW_SECRET, PUBLISHED_AT, '{"version":2}', NEW_SIGNATURE, 300, AT_PUBLICATION)).toBe(false);
    expect(verifyWebhook(NEW_SECRET, '2025-06-11T05:04:11.081728Z', BODY, NEW_SIGNATURE, 300, AT_PUBLICATION)).toBe(false);
    expect(verifyWebhook('00000000000000000000000000000000', PUBLISHED_AT, BODY, NEW_SIGNATURE, 300, AT_PUBLICATION)).toBe(false);
    expect(verifyWebhook(NEW_SECRET, PUBLISHED_AT, BODY, 'not-hex', 300, AT_PUBLICATION)).toBe(false);
    expect(verifyWebhook(NEW_SECRET, PUBLISHED_AT, BODY, NEW_SIGNATURE.slice(0, 62), 300, AT_PUBLICATION)).toBe(false);
    expect(verifyWebhook(NEW_SECRET, null, BODY, NEW_SIGNATURE, 300, AT_PUBLICATION)).toBe(false);
    expect(verifyWebhook(NEW_SECRET, PUBLISHED_AT, BODY, undefined, 300, AT_PUBLICATION)).toBe(false);
  });

  it('rejects stale or future publication times outside the tolerance; 0 turns the check off', () => {
    const tenMinutesLater = new Date(AT_PUBLICATION.getTime() + 600_000);
    expect(verifyWebhook(NEW_SECRET, PUBLISHED_AT, BODY, NEW_SIGNATURE, 300, tenMinutesLater)).toBe(false);
    expect(verifyWebhook(NEW_SECRET, PUBLISHED_AT, BODY, NEW_SIGNATURE, 900, tenMinutesLater)).toBe(true);
    expect(verifyWebhook(NEW_SECRET, PUBLISHED_AT, BODY, NEW_SIGNATURE, 0, tenMinutesLater)).toBe(true);
    expect(verifyWebhook(NEW_SECRET, 'yesterday', BODY, NEW_SIGNATURE, 300, AT_PUBLICATION)).toBe(false);
  });
});
