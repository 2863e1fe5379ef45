// The outbox rows an update check writes in its grouped statement (updates/check-writes.ts,
// webhooks/outbox.ts outboxFromRelation): one delivery per event for each enabled webhook
// subscribed to it, none for a disabled or unsubscribed one, none for a check whose claim was
// refused. The webhooks point at a local receiver; the delivery rows stay whatever their state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/webhooks/schema';
import { events as eventsTable } from '../../src/events/schema';
import { createFleet, type Fleet } from '../support/fleet';
import { startTestServer, type TestServer } from '../support/server';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

let t: TestServer;
let receiver: Receiver;
let fleet: Fleet;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ webhookAllowPrivate: true, webhookCaFiles: [receiver.caFile] });
  fleet = await createFleet(t.api);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

async function webhook(enabledEvents: string[]) {
  const res = await t.api('POST', '/webhooks', { url: receiver.url, enabled_events: enabledEvents });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook as { prn: string };
}

describe('update check outbox rows', () => {
  it('writes a delivery of each release_changed for each enabled webhook subscribed to it, once per device even when claims race', async () => {
    const cohort = await fleet.cohort();
    const [b1, b2] = [await fleet.bundle(), await fleet.bundle()];
    const release = async (bundlePrn: string, fields: Record<string, unknown>) =>
      (await t.api('POST', '/releases', { bundle_prn: bundlePrn, cohort_prn: cohort.prn, name: 'r', required: false, schedule_date: null, ...fields })).body.release;
    const r1 = await release(b1.prn, {});
    const r2 = await release(b2.prn, { phase_value: 2 });
    const subscribed = await webhook(['device.release_changed']);
    const disabled = await webhook(['device.release_changed']);
    expect((await t.api('PATCH', `/webhooks/${disabled.prn}`, { state: 'disabled' })).status).toBe(200);
    await webhook(['webhook.test_fire']);

    // Five devices at once, each storing what it reports: checks finishing together share one
    // statement, two get a slot, and a check whose slot was refused wrote nothing and resolved again.
    const devices = await fleet.devices(5, cohort.id);
    const answers = await Promise.all(devices.map((d) => t.api('POST', `/devices/${d.prn}/update`, { release_prn: r1.prn, write: true })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.source_prn === r2.prn)).toHaveLength(2);

    const db = t.server.platform.db;
    const recorded = await db.select().from(eventsTable);
    const changed = recorded.filter((e) => e.subtype === 'release_changed');
    expect(changed.map((e) => e.resourcePrn).sort()).toEqual(devices.map((d) => d.prn).sort());
    expect(recorded.filter((e) => e.subtype === 'claimed_release')).toHaveLength(2);

    const deliveries = await db.select().from(webhookDeliveries);
    expect(deliveries.map((d) => `${d.webhookId}|${d.eventId}`).sort()).toEqual(changed.map((e) => `${subscribed.prn.split(':').pop()}|${e.id}`).sort());
    expect(deliveries.every((d) => d.organizationId === t.organizationId)).toBe(true);
  });
});
