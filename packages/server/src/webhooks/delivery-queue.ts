/**
 * The outbox's database side: claiming due deliveries (FOR UPDATE SKIP LOCKED plus a lease, so
 * any number of processes share the work and a crashed one's claims come back when the lease
 * ends) and recording an attempt's outcome. Outcomes are written only while the lease is still
 * ours (`lease_token`), and a succeeded delivery is never claimed again.
 */
import { randomUUID } from 'node:crypto';
import { eq, getTableColumns, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { events } from '../events/schema';
import { recordEvent } from '../events/service';
import { resourcePrn } from '../core/prn';
import { prepared } from '../read-path/prepared-queries';
import { toRfc3339 } from '../core/time';
import { nextAttemptAt, type RetryPolicy } from './backoff';
import { failureKind, type AttemptResult } from './outbound';
import { webhookAttempts, webhookDeliveries, webhooks, type DeliveryState } from './schema';

export interface ClaimedDelivery {
  delivery: typeof webhookDeliveries.$inferSelect;
  webhook: typeof webhooks.$inferSelect;
  event: typeof events.$inferSelect;
}

const deliveryColumns = getTableColumns(webhookDeliveries);

/**
 * Up to `limit` due deliveries of enabled webhooks (and test fires of disabled ones), leased to `leaseToken`, with their webhook and
 * event: one statement, so a claim costs one round trip however many rows it takes, prepared
 * once per executor (no query building per claim; PostgreSQL parses it once per connection).
 */
export async function claimDeliveries(db: Database, limit: number, leaseSeconds: number, leaseToken: string): Promise<ClaimedDelivery[]> {
  const claim = prepared(db, 'webhook_claim_deliveries', () => claimStatement(db));
  return (await claim.execute({ limit, leaseSeconds, leaseToken })) as ClaimedDelivery[];
}

function claimStatement(db: Database) {
  // A FOR UPDATE CTE is always materialised, so the UPDATE touches exactly the rows this claim
  // locked; `where id in (subquery)` would give the planner room to re-run it.
  const due = db.$with('due', {}).as(sql`
    select c.id from ${webhookDeliveries} c
    where c.state = 'pending' and c.next_attempt_at <= now() and (c.locked_until is null or c.locked_until < now())
      and exists (select 1 from ${webhooks} w where w.id = c.webhook_id and (w.state = 'enabled'
        -- A test fire reaches a disabled webhook too: it is how an operator checks a url before enabling it.
        or exists (select 1 from ${events} e where e.id = c.event_id and e.type = 'webhook' and e.subtype = 'test_fire')))
    order by c.next_attempt_at
    limit ${sql.placeholder('limit')}::int
    for update of c skip locked`);
  // The leased rows as the UPDATE left them (attempts counted, first attempt stamped): the
  // outer select reads the statement's snapshot, which does not show this update's own writes.
  const claimed = db.$with('claimed', deliveryColumns).as(sql`
    update ${webhookDeliveries} d
    set locked_until = now() + make_interval(secs => ${sql.placeholder('leaseSeconds')}::float8), lease_token = ${sql.placeholder('leaseToken')}::uuid,
        attempts = d.attempts + 1, first_attempt_at = coalesce(d.first_attempt_at, now())
    from due
    where d.id = due.id
    returning d.*`);
  // Every column of the CTE, as a nested selection (drizzle does not expand a CTE named whole).
  const delivery = Object.fromEntries(Object.keys(deliveryColumns).map((key) => [key, claimed[key as keyof typeof deliveryColumns]])) as {
    [K in keyof typeof deliveryColumns]: (typeof claimed)[K];
  };
  return db
    .with(due, claimed)
    .select({ delivery, webhook: webhooks, event: events })
    .from(claimed)
    .innerJoin(webhooks, eq(webhooks.id, claimed.webhookId))
    .innerJoin(events, eq(events.id, claimed.eventId));
}

/** One attempt's outcome, as recordAttempts takes it. */
export interface AttemptOutcome {
  claimed: ClaimedDelivery;
  leaseToken: string;
  result: AttemptResult;
}

interface Move extends AttemptOutcome {
  state: DeliveryState;
  retryAt: Date | null;
}

/**
 * Writes attempts to the log and moves their deliveries on (succeeded, or retried later), any
 * number in one statement, so a busy process pays one round trip per batch rather than per
 * delivery. A delivery whose lease was lost is left alone (another process has taken it over and
 * records its own attempt). Answers the ids of the deliveries it moved.
 */
async function moveDeliveries(db: Executor, moves: Move[], now: Date): Promise<Set<string>> {
  const rows = moves.map(({ claimed: { delivery }, leaseToken, result, state, retryAt }) => ({
    delivery_id: delivery.id,
    lease_token: leaseToken,
    state,
    retry_at: retryAt?.toISOString() ?? null,
    attempt_id: randomUUID(),
    organization_id: delivery.organizationId,
    webhook_id: delivery.webhookId,
    event_id: delivery.eventId,
    attempt: delivery.attempts,
    status_code: result.status,
    latency_ms: result.latencyMs,
    error: result.error,
    detail: result.detail,
    // When the request was sent, not when its outcome was written down.
    attempted_at: new Date(now.getTime() - result.latencyMs).toISOString(),
  }));
  const move = prepared(db, 'webhook_move_deliveries', () => moveStatement(db));
  const written = (await move.execute({ rows: JSON.stringify(rows) })) as { deliveryId: string }[];
  return new Set(written.map((r) => r.deliveryId));
}

/**
 * moveDeliveries' statement over its `rows` placeholder (a JSON array), built once per executor.
 * Data-modifying CTEs must sit at the top level, hence three CTEs and a select of the last.
 */
function moveStatement(db: Executor) {
  const outcome = db.$with('outcome', {}).as(sql`
    select * from jsonb_to_recordset(${sql.placeholder('rows')}::jsonb) as o(
      delivery_id uuid, lease_token uuid, state text, retry_at timestamptz, attempt_id uuid, organization_id uuid,
      webhook_id uuid, event_id uuid, attempt int, status_code int, latency_ms int, error text, detail text, attempted_at timestamptz)`);
  const moved = db.$with('moved', {}).as(sql`
    update ${webhookDeliveries} d
    set state = o.state, locked_until = null, lease_token = null,
        next_attempt_at = coalesce(o.retry_at, d.next_attempt_at),
        completed_at = case when o.state = 'pending' then null else now() end
    from outcome o
    where d.id = o.delivery_id and d.lease_token = o.lease_token and d.state = 'pending'
    returning d.id`);
  const written = db.$with('written', { deliveryId: sql<string>`delivery_id`.as('delivery_id') }).as(sql`
    insert into ${webhookAttempts}
      (id, organization_id, webhook_id, delivery_id, event_id, attempt, status_code, latency_ms, error, detail, next_attempt_at, inserted_at)
    select o.attempt_id, o.organization_id, o.webhook_id, o.delivery_id, o.event_id, o.attempt,
           o.status_code, o.latency_ms, o.error, o.detail, o.retry_at, o.attempted_at
    from outcome o join moved on moved.id = o.delivery_id
    returning delivery_id`);
  return db.with(outcome, moved, written).select({ deliveryId: written.deliveryId }).from(written);
}

/**
 * Records attempts' outcomes. A delivery out of retries is given up in a transaction of its own
 * with its `webhook.request_failed` event, so the failure is announced exactly when it is final;
 * every other outcome is written in one statement.
 */
export async function recordAttempts(db: Database, outcomes: AttemptOutcome[], policy: RetryPolicy): Promise<void> {
  const now = new Date();
  const moves: Move[] = outcomes.map((outcome) => {
    const { delivery } = outcome.claimed;
    const retryAt = outcome.result.ok ? null : nextAttemptAt(new Date(toRfc3339(delivery.insertedAt)), now, delivery.attempts, policy);
    return { ...outcome, retryAt, state: outcome.result.ok ? 'succeeded' : retryAt ? 'pending' : 'failed' };
  });
  const movingOn = moves.filter((move) => move.state !== 'failed');
  if (movingOn.length > 0) await moveDeliveries(db, movingOn, now);
  for (const final of moves.filter((move) => move.state === 'failed')) await giveUp(db, final, now);
}

async function giveUp(db: Database, move: Move, now: Date): Promise<void> {
  const { webhook, event, delivery } = move.claimed;
  await db.transaction(async (tx) => {
    if (!(await moveDeliveries(tx, [move], now)).has(delivery.id)) return;
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
        failure: failureKind(move.result.error),
        status: move.result.status,
      },
    });
  });
}
