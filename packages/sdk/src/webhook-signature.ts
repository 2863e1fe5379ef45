/**
 * The webhook receiver check (api-contract.md section 6). The server's copy lives at
 * packages/server/src/webhooks/signature.ts once the webhooks work lands on main; this one has the
 * same signature and behaviour (a test cross-checks them when both exist), so the SDK has no
 * dependency on server code.
 *
 *   canopy-signature = HEX(HMAC-SHA256(key = secret's ASCII bytes, message = published-at + raw body))
 *
 * Upper-case hex; during a secret roll two signatures arrive comma-separated, new first.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const PUBLISHED_AT_HEADER = 'canopy-published-at';
export const SIGNATURE_HEADER = 'canopy-signature';

export function signWebhook(secret: string, publishedAt: string, rawBody: string | Uint8Array): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'ascii'));
  hmac.update(Buffer.from(publishedAt, 'utf8'));
  hmac.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody);
  return hmac.digest('hex').toUpperCase();
}

const HEX_SIGNATURE = /^[0-9A-Fa-f]{64}$/;

function sameSignature(expected: string, candidate: string): boolean {
  if (!HEX_SIGNATURE.test(candidate)) return false;
  // Both sides are 32 bytes here, so timingSafeEqual never sees different lengths.
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(candidate, 'hex'));
}

/**
 * True when published-at is within `toleranceSeconds` of now (0 or less: no freshness check) and
 * one of the header's signatures was made with one of `secrets` over exactly `rawBody` (the bytes
 * as received, before JSON parsing).
 */
export function verifyWebhook(
  secrets: string | readonly string[],
  publishedAt: string | null | undefined,
  rawBody: string | Uint8Array,
  signatureHeaderValue: string | null | undefined,
  toleranceSeconds = 300,
  now: Date = new Date(),
): boolean {
  if (!publishedAt || !signatureHeaderValue) return false;
  if (toleranceSeconds > 0) {
    const published = Date.parse(publishedAt);
    if (Number.isNaN(published) || Math.abs(now.getTime() - published) > toleranceSeconds * 1000) return false;
  }
  const candidates = signatureHeaderValue.split(',').map((s) => s.trim());
  let matched = false;
  // Every pair is checked, so timing does not reveal which one matched.
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    const expected = signWebhook(secret, publishedAt, rawBody);
    for (const candidate of candidates) if (sameSignature(expected, candidate)) matched = true;
  }
  return matched;
}
