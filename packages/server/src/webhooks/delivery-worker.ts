/**
 * The delivery loop every server process runs (a BACKGROUND_SERVICE): keeps up to
 * `webhookConcurrency` deliveries in flight, claims more as slots free up, and sleeps
 * `webhookPollMs` when nothing is due. Stopping waits for the requests in flight (each ends
 * within the timeout); a process killed instead leaves its leases to expire.
 */
import { randomUUID } from 'node:crypto';
import type { Platform } from '../platform';
import type { BackgroundService } from '../workers/handlers';
import { eventEnvelope } from '../events/service';
import { toRfc3339 } from '../http/time';
import type { RetryPolicy } from './backoff';
import { claimDeliveries, recordAttempt, type ClaimedDelivery } from './delivery-queue';
import { closeSender, senderFor } from './sender';
import { signingSecrets } from './secrets';
import { PUBLISHED_AT_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature';

export function createDeliveryService(platform: Platform): BackgroundService {
  const { config, db, log } = platform;
  const policy: RetryPolicy = { baseMs: config.webhookRetryBaseMs, maxDelayMs: config.webhookRetryMaxDelayMs, windowSeconds: config.webhookRetryWindowSeconds };
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  async function deliver(claimed: ClaimedDelivery, leaseToken: string): Promise<void> {
    const body = JSON.stringify(eventEnvelope(claimed.event));
    const publishedAt = toRfc3339(new Date());
    const result = await senderFor(platform).post(claimed.webhook.url, body, {
      [PUBLISHED_AT_HEADER]: publishedAt,
      [SIGNATURE_HEADER]: signatureHeader(signingSecrets(platform.secrets, claimed.webhook), publishedAt, body),
    });
    await recordAttempt(db, claimed, leaseToken, result, policy);
  }

  function start(claimed: ClaimedDelivery, leaseToken: string): void {
    const running: Promise<void> = deliver(claimed, leaseToken)
      .catch((error) => log.error({ err: error, delivery: claimed.delivery.id }, 'webhook delivery could not be recorded; its lease will expire and it will be retried'))
      .finally(() => {
        inFlight.delete(running);
        wake?.();
      });
    inFlight.add(running);
  }

  async function run(): Promise<void> {
    while (!stopped) {
      const free = config.webhookConcurrency - inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      if (free > 0) {
        const leaseToken = randomUUID();
        try {
          claimed = await claimDeliveries(db, free, config.webhookLeaseSeconds, leaseToken);
        } catch (error) {
          if (!stopped) log.error({ err: error }, 'could not claim webhook deliveries');
        }
        for (const item of claimed) start(item, leaseToken);
      }
      // A full batch means more may be due: claim again as soon as a slot frees up.
      if (claimed.length === 0 || inFlight.size >= config.webhookConcurrency) await pause(claimed.length === 0 ? config.webhookPollMs : 60_000);
    }
  }

  return {
    start() {
      if (!loop) loop = run();
    },
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      await Promise.allSettled([...inFlight]);
      closeSender(platform);
    },
  };
}
