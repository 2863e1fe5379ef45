/**
 * The delivery loop every server process runs (a BACKGROUND_SERVICE): keeps up to
 * `webhookConcurrency` deliveries in flight, claims more as slots free up, and sleeps up to
 * `webhookPollMs` when nothing is due. Stopping waits for the requests in flight (each ends
 * within the timeout) and for their outcomes to be written; a process killed instead leaves its
 * leases to expire.
 *
 * Database round trips are what a delivery costs most besides its request, so both sides are
 * batched: with deliveries in flight a claim waits until a quarter of the slots are free (a
 * backlog is claimed in batches, not one row per freed slot), and outcomes are written in groups
 * (outcome-batches.ts). A delivery's slot is held until its outcome is written.
 */
import { randomUUID } from 'node:crypto';
import type { Platform } from '../platform';
import type { BackgroundService } from '../workers/background-service';
import { eventEnvelope } from '../events/service';
import { toRfc3339 } from '../core/time';
import type { RetryPolicy } from './backoff';
import { claimDeliveries, recordAttempts, type AttemptOutcome, type ClaimedDelivery } from './delivery-queue';
import { createOutcomeBatches } from './outcome-batches';
import { closeSender, senderFor } from './sender';
import { signingSecrets } from './secrets';
import { PUBLISHED_AT_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature';

export function createDeliveryService(platform: Platform): BackgroundService {
  const { config, db, log } = platform;
  const policy: RetryPolicy = { baseMs: config.webhookRetryBaseMs, maxDelayMs: config.webhookRetryMaxDelayMs, windowSeconds: config.webhookRetryWindowSeconds };
  const inFlight = new Set<Promise<void>>();
  const outcomes = createOutcomeBatches<AttemptOutcome>((batch) => recordAttempts(db, batch, policy), 256);
  const claimBatch = Math.max(1, Math.floor(config.webhookConcurrency / 4));
  let stopped = false;
  /** True while the loop waits for slots (not for the poll interval): a finished delivery wakes it. */
  let waitingForSlots = false;
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
    await outcomes.add({ claimed, leaseToken, result });
  }

  function start(claimed: ClaimedDelivery, leaseToken: string): void {
    const running: Promise<void> = deliver(claimed, leaseToken)
      .catch((error) => log.error({ err: error, delivery: claimed.delivery.id }, 'webhook delivery could not be recorded; its lease will expire and it will be retried'))
      .finally(() => {
        inFlight.delete(running);
        if (waitingForSlots) wake?.();
      });
    inFlight.add(running);
  }

  async function run(): Promise<void> {
    while (!stopped) {
      const free = config.webhookConcurrency - inFlight.size;
      if (inFlight.size > 0 && free < claimBatch) {
        waitingForSlots = true;
        await pause(60_000);
        waitingForSlots = false;
        continue;
      }
      let claimed: ClaimedDelivery[] = [];
      const leaseToken = randomUUID();
      try {
        claimed = await claimDeliveries(db, free, config.webhookLeaseSeconds, leaseToken);
      } catch (error) {
        if (!stopped) log.error({ err: error }, 'could not claim webhook deliveries');
      }
      for (const item of claimed) start(item, leaseToken);
      // Nothing due: poll again later. Otherwise more may be due: claim again once slots allow.
      // The sleep is drawn between half and all of the interval, so processes that went idle
      // together (the end of a burst) do not poll in lockstep, which would leave every process's
      // poll at one moment per interval; spread out, a new delivery waits for the soonest of them.
      if (claimed.length === 0) await pause(config.webhookPollMs * (0.5 + Math.random() / 2));
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
