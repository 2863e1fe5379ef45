/**
 * Webhook secrets: 128 random bits as 32 upper-case hex characters, sealed at rest with the
 * platform's SecretBox. After a roll the previous secret keeps signing until its ttl runs out.
 */
import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../crypto/secret-box';
import { toRfc3339 } from '../http/time';
import type { webhooks } from './schema';

export const MAX_SECRET_TTL_SECONDS = 30 * 24 * 3600;

export function generateWebhookSecret(): string {
  return randomBytes(16).toString('hex').toUpperCase();
}

type SecretColumns = Pick<typeof webhooks.$inferSelect, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>;

/** The secrets that sign a request sent at `now`, newest first. */
export function signingSecrets(box: SecretBox, webhook: SecretColumns, now: Date = new Date()): string[] {
  const secrets = [box.open(webhook.secretSealed)];
  const previousAlive =
    webhook.previousSecretSealed !== null && webhook.previousSecretExpiresAt !== null && Date.parse(toRfc3339(webhook.previousSecretExpiresAt)) > now.getTime();
  if (previousAlive) secrets.push(box.open(webhook.previousSecretSealed!));
  return secrets;
}
