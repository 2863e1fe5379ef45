// The outbound client's kept-alive connections against real local HTTPS receivers: reused while
// busy, closed when idle, bounded per origin and in number of origins, and always pinned to the
// address the last DNS answer was checked at (DNS answers are staged with the `resolve` option;
// the receivers, TLS and sockets are real).
import type { LookupAddress } from 'node:dns';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookSender, type OutboundOptions, type WebhookSender } from '../../src/webhooks/outbound';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver';

const opened: { close(): unknown }[] = [];
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

async function receiverOn(host?: string, port?: number): Promise<Receiver> {
  const receiver = await startReceiver({ host, port });
  opened.push(receiver);
  return receiver;
}

function senderFor(receivers: Receiver[], options: Partial<OutboundOptions> = {}): WebhookSender {
  const sender = createWebhookSender({ allowPrivate: true, timeoutMs: 5_000, caFiles: receivers.map((r) => r.caFile), ...options });
  opened.push(sender);
  return sender;
}

/** A DNS stand-in whose answer for every name the test changes at will. */
function stagedDns(address: string) {
  const dns = { address, resolve: async (): Promise<LookupAddress[]> => [{ address: dns.address, family: 4 }] };
  return dns;
}

const post = (sender: WebhookSender, url: string) => sender.post(url, '{"version":1}', {});

describe('webhook receiver connections', () => {
  it('reuses one connection for consecutive deliveries to a receiver', async () => {
    const receiver = await receiverOn();
    const sender = senderFor([receiver]);
    for (let i = 0; i < 5; i++) expect((await post(sender, receiver.url)).ok).toBe(true);
    expect(receiver.requests.length).toBe(5);
    expect(receiver.connections.opened).toBe(1);
  });

  it('closes a connection left idle, and opens a new one for the next delivery', async () => {
    const receiver = await receiverOn();
    const sender = senderFor([receiver], { pool: { idleMs: 200 } });
    expect((await post(sender, receiver.url)).ok).toBe(true);
    expect(receiver.connections.opened).toBe(1);
    // The receiver keeps idle connections 30 s: only the sender can be closing this one.
    await waitFor(() => receiver.connections.open === 0, 'the idle connection to close');
    expect((await post(sender, receiver.url)).ok).toBe(true);
    expect(receiver.connections.opened).toBe(2);
  });

  it('opens at most maxSocketsPerOrigin connections to one origin, however many deliveries are in flight', async () => {
    const receiver = await receiverOn();
    receiver.respond = () => ({ status: 200, delayMs: 50 });
    const sender = senderFor([receiver], { pool: { maxSocketsPerOrigin: 2 } });
    const results = await Promise.all(Array.from({ length: 8 }, () => post(sender, receiver.url)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(receiver.requests.length).toBe(8);
    expect(receiver.connections.peak).toBe(2);
    expect(receiver.connections.opened).toBe(2);
  });

  it('sends to the address DNS answers now, never over a connection to the one it answered before', async () => {
    const first = await receiverOn('127.0.0.1');
    const port = Number(new URL(first.url).port);
    const second = await receiverOn('127.0.0.2', port);
    const dns = stagedDns('127.0.0.1');
    const sender = senderFor([first, second], { resolve: dns.resolve });

    expect((await post(sender, first.url)).ok).toBe(true);
    dns.address = '127.0.0.2';
    expect((await post(sender, first.url)).ok).toBe(true);
    expect([first.requests.length, second.requests.length]).toEqual([1, 1]);

    // Back to the first address: its kept-alive connection serves it again.
    dns.address = '127.0.0.1';
    expect((await post(sender, first.url)).ok).toBe(true);
    expect([first.requests.length, second.requests.length]).toEqual([2, 1]);
    expect(first.connections.opened).toBe(1);
  });

  it('asks DNS once for requests that start during one lookup of their name, and again for the next request', async () => {
    const receiver = await receiverOn();
    const lookups: string[] = [];
    const dns = stagedDns('127.0.0.1');
    const sender = senderFor([receiver], {
      resolve: async (hostname) => {
        lookups.push(hostname);
        await new Promise((r) => setTimeout(r, 20));
        return dns.resolve();
      },
    });
    const together = await Promise.all(Array.from({ length: 4 }, () => post(sender, receiver.url)));
    expect(together.every((r) => r.ok)).toBe(true);
    expect(lookups).toEqual(['localhost']);

    dns.address = '169.254.169.254';
    expect(await post(sender, receiver.url)).toMatchObject({ ok: false, error: 'address_not_allowed' });
    expect(lookups).toEqual(['localhost', 'localhost']);
    expect(receiver.requests.length).toBe(4);
  });

  it('refuses a name whose DNS answer turned to a refused address, though a connection to it is kept alive', async () => {
    const receiver = await receiverOn();
    const dns = stagedDns('127.0.0.1');
    const sender = senderFor([receiver], { resolve: dns.resolve });
    expect((await post(sender, receiver.url)).ok).toBe(true);
    expect(receiver.connections.open).toBe(1);

    dns.address = '169.254.169.254';
    expect(await post(sender, receiver.url)).toMatchObject({ ok: false, status: null, error: 'address_not_allowed' });
    expect(receiver.requests.length).toBe(1);
  });

  it('keeps connections for at most maxOrigins origins, closing the least recently used idle one', async () => {
    const receiver = await receiverOn();
    // Two origins of one receiver: by name, and by IP literal (its certificate names both).
    const byName = receiver.url;
    const byAddress = receiver.url.replace('localhost', '127.0.0.1');
    const sender = senderFor([receiver], { pool: { maxOrigins: 1 } });

    expect((await post(sender, byName)).ok).toBe(true);
    expect((await post(sender, byAddress)).ok).toBe(true);
    expect(receiver.connections.opened).toBe(2);
    await waitFor(() => receiver.connections.open === 1, "the first origin's connection to close");
  });

  it('sends over a connection of its own when every pooled origin is busy, and closes it after the answer', async () => {
    const receiver = await receiverOn();
    const byName = receiver.url;
    const byAddress = receiver.url.replace('localhost', '127.0.0.1');
    receiver.respond = ({ path }) => ({ status: 200, delayMs: path.endsWith('?slow') ? 300 : 0 });
    const sender = senderFor([receiver], { pool: { maxOrigins: 1 } });

    const slow = post(sender, `${byName}?slow`);
    await waitFor(() => receiver.connections.opened === 1, 'the slow delivery to connect');
    expect((await post(sender, byAddress)).ok).toBe(true);
    expect((await slow).ok).toBe(true);
    expect(receiver.connections.opened).toBe(2);
    // The pooled origin keeps its connection; the one-off connection is gone.
    await waitFor(() => receiver.connections.open === 1, 'the one-off connection to close');
    expect((await post(sender, byName)).ok).toBe(true);
    expect(receiver.connections.opened).toBe(2);
  });
});
