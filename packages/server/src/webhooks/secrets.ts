/**
 * Webhook secrets: 128 random bits as 32 upper-case hex characters, sealed at rest with the
 * platform's SecretBox. After a roll the previous secret keeps signing until its ttl runs out.
 */
import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../crypto/secret-box';
import { toRfc3339 } from '../core/time';
import type { webhooks } from './schema';

export const MAX_SECRET_TTL_SECONDS = 30 * 24 * 3600;

export function generateWebhookSecret(): string {
  return randomBytes(16).toString('hex').toUpperCase();
}

type SecretColumns = Pick<typeof webhooks.$inferSelect, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>;

/**
 * Opened secrets by their sealed form, per box, so a busy webhook's secret is not decrypted again
 * for every delivery. Nothing can make an entry stale, in this process or another: sealing draws a
 * fresh IV, so a sealed string stands for one plaintext forever, and a roll stores a new sealed
 * string (a new key here) rather than changing what an old one opens to. Bounded: emptied when full.
 */
const opened = new WeakMap<SecretBox, Map<string, string>>();
export const MAX_OPENED_SECRETS = 1024;

function open(box: SecretBox, sealed: string): string {
  let cache = opened.get(box);
  if (!cache) opened.set(box, (cache = new Map()));
  let secret = cache.get(sealed);
  if (secret === undefined) {
    secret = box.open(sealed);
    if (cache.size >= MAX_OPENED_SECRETS) cache.clear();
    cache.set(sealed, secret);
  }
  return secret;
}

/** The secrets that sign a request sent at `now`, newest first. */
export function signingSecrets(box: SecretBox, webhook: SecretColumns, now: Date = new Date()): string[] {
  const secrets = [open(box, webhook.secretSealed)];
  const previousAlive =
    webhook.previousSecretSealed !== null && webhook.previousSecretExpiresAt !== null && Date.parse(toRfc3339(webhook.previousSecretExpiresAt)) > now.getTime();
  if (previousAlive) secrets.push(open(box, webhook.previousSecretSealed!));
  return secrets;
}
