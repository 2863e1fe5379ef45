/**
 * Webhook signing, the one implementation shared by the sender (the server imports it as
 * '@canopy/sdk/webhook-signature') and by receivers (the SDK re-exports `verifyWebhook`). Pure
 * functions over node:crypto with no other imports, so the file can be copied into any receiver.
 *
 *   canopy-signature: HEX(HMAC-SHA256(key = secret's ASCII bytes, message = published-at + raw body))
 *
 * Upper-case hex; during a secret's roll both signatures are sent, comma-separated, new first. A
 * receiver's example: site/docs/canopy-core/reference/integration-management/webhooks.mdx.
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

/** The header value for the secrets in force, newest first. */
export function signatureHeader(secrets: readonly string[], publishedAt: string, rawBody: string | Uint8Array): string {
  return secrets.map((secret) => signWebhook(secret, publishedAt, rawBody)).join(',');
}

const HEX_SIGNATURE = /^[0-9A-Fa-f]{64}$/;

function sameSignature(expected: string, candidate: string): boolean {
  if (!HEX_SIGNATURE.test(candidate)) return false;
  // Both sides are 32 bytes here, so timingSafeEqual never sees different lengths.
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(candidate, 'hex'));
}

/**
 * True when the request is fresh (published-at within `toleranceSeconds` of now, either way) and
 * one of its signatures was made with one of `secrets` over exactly `rawBody`. Pass the body as
 * received, before any JSON parsing: re-serialising changes the bytes. A tolerance of 0 or less
 * turns the freshness check off (for replaying stored deliveries).
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
  // Check every pair rather than returning early, so timing does not reveal which one matched.
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    const expected = signWebhook(secret, publishedAt, rawBody);
    for (const candidate of candidates) if (sameSignature(expected, candidate)) matched = true;
  }
  return matched;
}
