/**
 * The outbox's database side: claiming due deliveries (FOR UPDATE SKIP LOCKED plus a lease, so
 * any number of processes share the work and a crashed one's claims come back when the lease
 * ends) and recording an attempt's outcome. Outcomes are written only while the lease is still
 * ours (`lease_token`), and a succeeded delivery is never claimed again.
 */
import { randomUUID } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { events } from '../events/schema';
import { recordEvent } from '../events/service';
import { resourcePrn } from '../http/prn';
import { toRfc3339 } from '../http/time';
import { nextAttemptAt, type RetryPolicy } from './backoff';
import { failureKind, type AttemptResult } from './outbound';
import { webhookAttempts, webhookDeliveries, webhooks, type DeliveryState } from './schema';

export interface ClaimedDelivery {
  delivery: typeof webhookDeliveries.$inferSelect;
  webhook: typeof webhooks.$inferSelect;
  event: typeof events.$inferSelect;
}

/** Up to `limit` due deliveries of enabled webhooks, leased to `leaseToken`. */
export async function claimDeliveries(db: Database, limit: number, leaseSeconds: number, leaseToken: string): Promise<ClaimedDelivery[]> {
  // The CTE is evaluated once (a FOR UPDATE CTE is always materialised), so the UPDATE touches
  // exactly the rows this claim locked; `where id in (subquery)` gives the planner room to re-run it.
  const result = await db.execute(sql`
    with due as (
      select c.id from ${webhookDeliveries} c
      where c.state = 'pending' and c.next_attempt_at <= now() and (c.locked_until is null or c.locked_until < now())
        and exists (select 1 from ${webhooks} w where w.id = c.webhook_id and w.state = 'enabled')
      order by c.next_attempt_at
      limit ${limit}
      for update of c skip locked)
    update ${webhookDeliveries} d
    set locked_until = now() + make_interval(secs => ${leaseSeconds}), lease_token = ${leaseToken},
        attempts = d.attempts + 1, first_attempt_at = coalesce(d.first_attempt_at, now())
    from due
    where d.id = due.id
    returning d.id`);
  const ids = (result as unknown as { rows: { id: string }[] }).rows.map((r) => r.id);
  if (ids.length === 0) return [];
  return db
    .select({ delivery: webhookDeliveries, webhook: webhooks, event: events })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(inArray(webhookDeliveries.id, ids));
}

/**
 * Writes the attempt to the log and moves the delivery on (succeeded, or retried later) in one
 * statement, so the common case costs one round trip. A no-op when the lease was lost (another
 * process has taken the delivery over and will record its own attempt). Answers whether it wrote.
 */
async function moveDelivery(db: Executor, claimed: ClaimedDelivery, leaseToken: string, result: AttemptResult, state: DeliveryState, retryAt: Date | null, now: Date): Promise<boolean> {
  const { delivery } = claimed;
  // When the request was sent, not when its outcome was written down.
  const attemptedAt = new Date(now.getTime() - result.latencyMs).toISOString();
  const retryAtText = retryAt ? retryAt.toISOString() : null;
  const written = await db.execute(sql`
    with moved as (
      update ${webhookDeliveries}
      set state = ${state}, locked_until = null, lease_token = null,
          next_attempt_at = coalesce(${retryAtText}::timestamptz, next_attempt_at),
          completed_at = ${state === 'pending' ? sql`null` : sql`now()`}
      where id = ${delivery.id} and lease_token = ${leaseToken} and state = 'pending'
      returning id)
    insert into ${webhookAttempts}
      (id, organization_id, webhook_id, delivery_id, event_id, attempt, status_code, latency_ms, error, detail, next_attempt_at, inserted_at)
    select ${randomUUID()}, ${delivery.organizationId}, ${delivery.webhookId}, moved.id, ${delivery.eventId}, ${delivery.attempts},
           ${result.status}::int, ${result.latencyMs}, ${result.error}, ${result.detail}, ${retryAtText}::timestamptz, ${attemptedAt}::timestamptz
    from moved
    returning id`);
  return (written as unknown as { rows: unknown[] }).rows.length > 0;
}

/**
 * Records an attempt's outcome. A delivery out of retries is given up in the same transaction
 * as its `webhook.request_failed` event, so the failure is announced exactly when it is final.
 */
export async function recordAttempt(db: Database, claimed: ClaimedDelivery, leaseToken: string, result: AttemptResult, policy: RetryPolicy): Promise<void> {
  const { delivery, webhook, event } = claimed;
  const now = new Date();
  const retryAt = result.ok ? null : nextAttemptAt(new Date(toRfc3339(delivery.insertedAt)), now, delivery.attempts, policy);
  const state: DeliveryState = result.ok ? 'succeeded' : retryAt ? 'pending' : 'failed';
  if (state !== 'failed') {
    await moveDelivery(db, claimed, leaseToken, result, state, retryAt, now);
    return;
  }
  await db.transaction(async (tx) => {
    if (!(await moveDelivery(tx, claimed, leaseToken, result, state, retryAt, now))) return;
    const webhookPrn = resourcePrn(webhook.organizationId, 'webhook', webhook.id);
    await recordEvent(tx, {
      organizationId: webhook.organizationId,
      type: 'webhook',
      subtype: 'request_failed',
      actorPrn: null,
      resourcePrn: webhookPrn,
      data: {
        webhook_prn: webhookPrn,
        event_prn: resourcePrn(event.organizationId, 'event', event.id),
        failure: failureKind(result.error),
        status: result.status,
      },
    });
  });
}
