import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from '../src/index';

const secret = '0123456789ABCDEF0123456789ABCDEF';
const body = '{"version":1,"prn":"prn:1:o:event:e","type":"webhook"}';
const now = new Date('2025-06-11T05:04:10Z');
const publishedAt = '2025-06-11T05:04:00.000000Z';

describe('verifyWebhook', () => {
  it('accepts the upper-case hex HMAC-SHA256 of published-at + raw body', () => {
    const expected = createHmac('sha256', secret).update(publishedAt + body).digest('hex').toUpperCase();
    expect(signWebhook(secret, publishedAt, body)).toBe(expected);
    expect(verifyWebhook(secret, publishedAt, body, expected, 300, now)).toBe(true);
    expect(verifyWebhook(secret, publishedAt, body, expected.toLowerCase(), 300, now)).toBe(true);
  });

  it('accepts either of two comma-separated signatures (secret roll), rejects tampering and stale times', () => {
    const header = `${signWebhook('NEW'.padEnd(32, '0'), publishedAt, body)},${signWebhook(secret, publishedAt, body)}`;
    expect(verifyWebhook(secret, publishedAt, body, header, 300, now)).toBe(true);
    expect(verifyWebhook(secret, publishedAt, `${body} `, header, 300, now)).toBe(false);
    expect(verifyWebhook(secret, publishedAt, body, header, 5, now)).toBe(false);
    expect(verifyWebhook(secret, publishedAt, body, header, 0, new Date('2030-01-01'))).toBe(true);
    expect(verifyWebhook(secret, null, body, header)).toBe(false);
    expect(verifyWebhook(secret, publishedAt, body, 'not-hex', 300, now)).toBe(false);
  });

  const serverModule = path.resolve(__dirname, '../../server/src/webhooks/signature.ts');
  it.skipIf(!fs.existsSync(serverModule))('is the implementation the server signs with (packages/server/src/webhooks/signature.ts re-exports it)', async () => {
    const server = await import(serverModule);
    expect(server.signWebhook).toBe(signWebhook);
    expect(server.verifyWebhook).toBe(verifyWebhook);
    expect(verifyWebhook(secret, publishedAt, body, server.signatureHeader([secret], publishedAt, body), 300, now)).toBe(true);
  });
});
