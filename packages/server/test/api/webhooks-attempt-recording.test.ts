// Recording attempt outcomes in batches, on the real database with the delivery workers off so
// the test holds the leases itself: one statement moves every delivery whose lease is still held,
// and leaves alone one another process has taken over.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/service';
import { claimDeliveries, recordAttempts } from '../../src/webhooks/delivery-queue';
import type { AttemptResult } from '../../src/webhooks/outbound';
import { webhookAttempts, webhookDeliveries } from '../../src/webhooks/schema';
import { releaseChangedData } from '../support/event-data';
import { startTestServer, type TestServer } from '../support/server';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

let t: TestServer;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ webhookAllowPrivate: true, webhookCaFiles: [receiver.caFile] }, { workers: false });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const POLICY = { baseMs: 60_000, maxDelayMs: 60_000, windowSeconds: 3600 };
const ok: AttemptResult = { ok: true, status: 200, latencyMs: 12, error: null, detail: null };
const refused: AttemptResult = { ok: false, status: 500, latencyMs: 7, error: 'response_status', detail: 'answered 500' };

describe('recording webhook attempts', () => {
  it('moves every delivery whose lease is held in one batch, and skips one whose lease another process took', async () => {
    const db = t.server.platform.db;
    const created = await t.api('POST', '/webhooks', { url: receiver.url, enabled_events: ['device.release_changed'] });
    expect(created.status).toBe(201);
    for (let n = 0; n < 3; n++) {
      await db.transaction((tx) => recordEvent(tx, { organizationId: t.organizationId, type: 'device', subtype: 'release_changed', actorPrn: null, resourcePrn: null, data: releaseChangedData(String(n)) }));
    }
    const mine = await claimDeliveries(db, 3, 60, '00000000-0000-4000-8000-00000000000a');
    expect(mine.length).toBe(3);
    const [succeeded, failed, takenOver] = mine;

    // Its lease runs out and another process claims it.
    await db.update(webhookDeliveries).set({ lockedUntil: sql`now() - interval '1 second'` }).where(eq(webhookDeliveries.id, takenOver.delivery.id));
    const theirs = await claimDeliveries(db, 3, 60, '00000000-0000-4000-8000-00000000000b');
    expect(theirs.map((c) => c.delivery.id)).toEqual([takenOver.delivery.id]);

    const leaseToken = '00000000-0000-4000-8000-00000000000a';
    await recordAttempts(db, [succeeded, failed, takenOver].map((claimed, i) => ({ claimed, leaseToken, result: i === 1 ? refused : ok })), POLICY);

    const rows = new Map((await db.select().from(webhookDeliveries)).map((row) => [row.id, row]));
    expect(rows.get(succeeded.delivery.id)).toMatchObject({ state: 'succeeded', leaseToken: null, lockedUntil: null });
    expect(rows.get(failed.delivery.id)).toMatchObject({ state: 'pending', leaseToken: null, lockedUntil: null });
    expect(Date.parse(String(rows.get(failed.delivery.id)!.nextAttemptAt))).toBeGreaterThan(Date.now() + 20_000);
    expect(rows.get(takenOver.delivery.id)).toMatchObject({ state: 'pending', leaseToken: '00000000-0000-4000-8000-00000000000b' });

    const attempts = await db.select().from(webhookAttempts);
    expect(attempts.map((a) => [a.deliveryId, a.statusCode, a.error, a.attempt]).sort()).toEqual(
      [
        [succeeded.delivery.id, 200, null, 1],
        [failed.delivery.id, 500, 'response_status', 1],
      ].sort(),
    );

    // The process that holds its lease now records it.
    await recordAttempts(db, [{ claimed: theirs[0], leaseToken: '00000000-0000-4000-8000-00000000000b', result: ok }], POLICY);
    const [finished] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, takenOver.delivery.id));
    expect(finished.state).toBe('succeeded');
    expect((await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, takenOver.delivery.id))).map((a) => a.attempt)).toEqual([2]);
  });
});
