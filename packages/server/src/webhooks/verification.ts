/**
 * The synchronous test fire that guards enabling a webhook or moving an enabled one: a signed
 * `webhook.test_fire` envelope sent straight to the candidate url. It is not stored as an event
 * (the change it guards may still be refused) and must be answered 200 within the timeout.
 */
import { randomUUID } from 'node:crypto';
import { invalidField } from '../http/errors';
import { resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import type { Platform } from '../platform';
import { failureKind } from './outbound';
import { senderFor } from './sender';
import { PUBLISHED_AT_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature';

export async function verifyReceiver(platform: Platform, organizationId: string, webhookId: string, url: string, secrets: string[]): Promise<void> {
  const now = new Date();
  const body = JSON.stringify({
    version: 1,
    prn: resourcePrn(organizationId, 'event', randomUUID()),
    type: 'webhook',
    inserted_at: toRfc3339(now),
    data: { type: 'test_fire', data: { webhook_prn: resourcePrn(organizationId, 'webhook', webhookId), verification: true } },
  });
  const publishedAt = toRfc3339(now);
  const result = await senderFor(platform).post(url, body, {
    [PUBLISHED_AT_HEADER]: publishedAt,
    [SIGNATURE_HEADER]: signatureHeader(secrets, publishedAt, body),
  });
  if (!result.ok) {
    throw invalidField('url', 'verification_failed', { failure: failureKind(result.error), status: result.status, error: result.error, detail: result.detail });
  }
}
