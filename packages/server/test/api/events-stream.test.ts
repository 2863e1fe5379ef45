import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server';
import { openEventStream, type OpenStream } from '../support/event-stream';
import { useTestServer } from '../support/server';

const t = useTestServer();
const streams: OpenStream[] = [];
afterAll(() => streams.forEach((s) => s.close()));

async function stream(query = '', key: string | null = t.apiKey, headers: Record<string, string> = {}, base = t.url) {
  const opened = await openEventStream(`${base}/events/stream${query}`, key, headers);
  streams.push(opened);
  return opened;
}

let serial = 0;
async function newDevice(api = t.api) {
  const product = (await api('POST', '/products', { name: `stream-${++serial}` })).body.product;
  const device = (await api('POST', '/devices', { identifier: `stream-dev-${serial}`, product_prn: product.prn })).body.device;
  return device;
}

/** Changes the device's description: one `device.updated` event. */
const touch = async (prn: string, description: string, api = t.api) => expect((await api('PATCH', `/devices/${prn}`, { description })).status).toBe(200);

describe('GET /events/stream', () => {
  it('streams new events live, each as GET /events lists it, with the prn as the message id', async () => {
    const device = await newDevice();
    const live = await stream('?type=device&subtype=updated');
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await touch(device.prn, 'first');
    const [message] = await live.waitFor(1);
    const listed = (await t.api('GET', '/events?type=device&subtype=updated&limit=1')).body.events[0];
    expect(message.data).toEqual(listed);
    expect(message.id).toBe(listed.prn);
  });

  it('applies the filters of GET /events', async () => {
    const device = await newDevice();
    const other = await newDevice();
    const about = await stream(`?resource_prn=${encodeURIComponent(device.prn)}`);
    await touch(other.prn, 'not this one');
    await touch(device.prn, 'this one');
    const [message] = await about.waitFor(1);
    expect(message.data.resource_prn).toBe(device.prn);
    await new Promise((r) => setTimeout(r, 1500));
    expect(about.messages.every((m) => m.data.resource_prn === device.prn)).toBe(true);
  });

  it('takes every event type GET /events takes: an admin write streams as its audit event', async () => {
    const device = await newDevice();
    const audits = await stream(`?type=audit&subtype=updated&resource_prn=${encodeURIComponent(device.prn)}`);
    expect(audits.status).toBe(200);
    await touch(device.prn, 'audited');
    const [message] = await audits.waitFor(1);
    expect(message.data).toMatchObject({ type: 'audit', resource_prn: device.prn, data: { type: 'updated', data: { changes: { description: 'audited' } } } });
  });

  it('resumes after Last-Event-ID with every matching event after it, then live ones', async () => {
    const device = await newDevice();
    for (const text of ['a', 'b', 'c']) await touch(device.prn, text);
    const filter = `?type=device&resource_prn=${encodeURIComponent(device.prn)}&subtype=updated`;
    const past = (await t.api('GET', `/events${filter}&order=asc`)).body.events;
    expect(past).toHaveLength(3);
    const resumed = await stream(filter, t.apiKey, { 'last-event-id': past[0].prn });
    const caughtUp = await resumed.waitFor(2);
    expect(caughtUp.map((m) => m.id)).toEqual([past[1].prn, past[2].prn]);
    await touch(device.prn, 'd');
    const all = await resumed.waitFor(3);
    expect(all[2].data.data.type).toBe('updated');
    expect(all.map((m) => m.id)).not.toContain(past[0].prn);
    // The query-parameter form, for clients that cannot set the header.
    const byParameter = await stream(`${filter}&last_event_id=${encodeURIComponent(past[1].prn)}`);
    expect((await byParameter.waitFor(2)).map((m) => m.id)).toEqual([past[2].prn, all[2].id]);
  });

  it('never sends an event twice while it re-reads the late-commit window', async () => {
    const device = await newDevice();
    const live = await stream(`?type=device&resource_prn=${encodeURIComponent(device.prn)}`);
    await touch(device.prn, 'once');
    await live.waitFor(1);
    await new Promise((r) => setTimeout(r, 2500));
    expect(live.messages).toHaveLength(1);
  });

  it('keeps organizations apart: no other organization\'s events, and its event ids are 404', async () => {
    const other = await t.createOrganization();
    // Device events only: each write also records an audit event (events.md, "Audit trail").
    const theirs = await stream('?type=device', other.apiKey);
    const mine = await stream('?type=device');
    const theirDevice = await newDevice(other.api);
    await touch(theirDevice.prn, 'theirs', other.api);
    const myDevice = await newDevice();
    await touch(myDevice.prn, 'mine');
    const [theirMessage] = await theirs.waitFor(1);
    expect(theirMessage.data.resource_prn).toBe(theirDevice.prn);
    await mine.waitFor(1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(mine.messages.some((m) => m.data.resource_prn === theirDevice.prn)).toBe(false);
    expect(theirs.messages.some((m) => m.data.resource_prn === myDevice.prn)).toBe(false);
    const refused = await stream('', t.apiKey, { 'last-event-id': theirMessage.id! });
    expect(refused.status).toBe(404);
    expect(refused.body.errors[0].code).toBe('not_found');
  });

  it('answers 4xx in the error shape before opening a stream', async () => {
    const anonymous = await stream('', null);
    expect(anonymous.status).toBe(401);
    const malformed = await stream('', t.apiKey, { 'last-event-id': 'not-an-event' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].context).toMatchObject({ parameter: 'last_event_id' });
    const badTime = await stream('?inserted_at_gte=yesterday');
    expect(badTime.status).toBe(400);
    const badType = await stream('?type=gadget');
    expect(badType.status).toBe(400);
    const readKey = await t.keyWithRole('read');
    expect((await stream('', readKey)).status).toBe(200);
  });

  it('answers HEAD at once with the stream\'s headers and no body, rather than holding the connection', async () => {
    const answer = await fetch(`${t.url}/events/stream`, { method: 'HEAD', headers: { authorization: `Bearer ${t.apiKey}` }, signal: AbortSignal.timeout(5_000) });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await answer.text()).toBe('');
  });

  it.runIf(process.env.DATABASE_URL)('delivers events written by another server process on the same PostgreSQL', async () => {
    const second = await startServer({ ...t.config, adminPort: 0, devicePort: 0 }, { workers: false });
    try {
      const device = await newDevice();
      const onSecond = await stream(`?resource_prn=${encodeURIComponent(device.prn)}`, t.apiKey, {}, second.adminUrl);
      await touch(device.prn, 'written on the first');
      const [message] = await onSecond.waitFor(1);
      expect(message.data.resource_prn).toBe(device.prn);
      onSecond.close();
    } finally {
      await second.close();
    }
  });
});
