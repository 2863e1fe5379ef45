// The outbound client against a real local HTTPS receiver: what it refuses before connecting,
// how each failure is named, and that it trusts only the CAs it is given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS_NOT_ALLOWED_DETAIL, createWebhookSender, failureKind, type AttemptResult, type OutboundOptions } from '../../src/webhooks/outbound';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

async function post(url: string, options: Partial<OutboundOptions> = {}) {
  const sender = createWebhookSender({ allowPrivate: true, timeoutMs: 1_000, caFiles: [receiver.caFile], ...options });
  try {
    return await sender.post(url, '{"version":1}', {});
  } finally {
    sender.close();
  }
}

describe('webhook outbound client', () => {
  it('delivers to an allowed receiver it trusts', async () => {
    receiver.respond = () => ({ status: 200 });
    expect(await post(receiver.url)).toMatchObject({ ok: true, status: 200, error: null });
  });

  it('refuses loopback and private addresses after resolving, unless allowed, without connecting', async () => {
    const before = receiver.requests.length;
    const refused = await post(receiver.url, { allowPrivate: false });
    expect(refused).toMatchObject({ ok: false, status: null, error: 'address_not_allowed', detail: ADDRESS_NOT_ALLOWED_DETAIL });
    expect(failureKind(refused.error)).toBe('host_resolution_failed');
    const literal = await post(receiver.url.replace('localhost', '127.0.0.1'), { allowPrivate: false });
    expect(literal.error).toBe('address_not_allowed');
    expect(receiver.requests.length).toBe(before);
  });

  /** Refused by an address literal in the url and by a name that resolves to it, never connected to. */
  async function expectRefused(address: string, allowPrivate: boolean) {
    const { port } = new URL(receiver.url);
    const literal = `https://${address.includes(':') ? `[${address}]` : address}:${port}/hooks`;
    const byName = await post(`https://hook.example.test:${port}/hooks`, { allowPrivate, resolve: async () => [{ address, family: address.includes(':') ? 6 : 4 }] });
    for (const result of [await post(literal, { allowPrivate }), byName]) {
      expect(result, address).toMatchObject({ ok: false, status: null, error: 'address_not_allowed', detail: ADDRESS_NOT_ALLOWED_DETAIL });
    }
  }

  // Each leads to the receiver on 127.0.0.1 if the policy let it through.
  it.each(['::ffff:0:127.0.0.1', '::127.0.0.1', '::7f00:1', '64:ff9b:1::7f00:1', '2002:7f00:1::1', 'fec0::1', '2001:0:7f00:1::'])(
    'refuses %s, an IPv6 form of a non-public address, by literal and by name',
    async (address) => {
      const before = receiver.requests.length;
      await expectRefused(address, false);
      expect(receiver.requests.length).toBe(before);
    },
  );

  it.each([
    '169.254.169.254', '169.254.169.253', '100.100.100.200', '168.63.129.16', 'fd00:ec2::254', 'fd00:ec2::253',
    '::ffff:169.254.169.254', '::ffff:0:169.254.169.254', '::169.254.169.254', '64:ff9b::a9fe:a9fe', '64:ff9b:1::a9fe:a9fe', '2002:a9fe:a9fe::', '2002:a83f:8110::',
  ])('never reaches the metadata address %s, by literal or by name, even with private addresses allowed', async (address) => {
    await expectRefused(address, true);
    await expectRefused(address, false);
  });

  it('answers a name that does not resolve exactly as one that resolves only to refused addresses, naming none', async () => {
    const strip = ({ latencyMs: _, ...rest }: AttemptResult) => rest;
    const unresolvable = strip(await post('https://no-such-host.invalid/hook', { allowPrivate: false }));
    const internal = strip(await post('https://intranet.example.test/hook', { allowPrivate: false, resolve: async () => [{ address: '10.1.2.3', family: 4 }, { address: 'fd12::7', family: 6 }] }));
    expect(internal).toEqual(unresolvable);
    expect(internal).toEqual({ ok: false, status: null, error: 'address_not_allowed', detail: ADDRESS_NOT_ALLOWED_DETAIL });
    expect(failureKind(internal.error)).toBe('host_resolution_failed');
  });

  it('names unresolvable hosts, untrusted certificates and non-https urls', async () => {
    const unresolvable = await post('https://no-such-host.invalid/hook');
    expect(unresolvable.error).toBe('address_not_allowed');
    expect(failureKind(unresolvable.error)).toBe('host_resolution_failed');
    expect((await post(receiver.url, { caFiles: [] })).error).toBe('tls_failed');
    expect((await post(receiver.url.replace('https:', 'http:'))).ok).toBe(false);
  });

  it('times out a hanging receiver, stops reading at 64 KiB, does not follow redirects', async () => {
    receiver.respond = () => ({ delayMs: 2_000 });
    const hung = await post(receiver.url);
    expect(hung).toMatchObject({ ok: false, error: 'response_timeout', status: null });
    expect(hung.latencyMs).toBeLessThan(1_800);
    expect(failureKind(hung.error)).toBe('response_timeout');

    receiver.respond = () => ({ status: 200, bodyBytes: 10 * 1024 * 1024 });
    expect(await post(receiver.url)).toMatchObject({ ok: false, error: 'response_too_large', status: 200 });

    receiver.respond = () => ({ status: 301, headers: { location: `${receiver.url}?moved` } });
    const moved = await post(receiver.url);
    expect(moved).toMatchObject({ ok: false, error: 'response_status', status: 301 });
    expect(failureKind(moved.error)).toBe('response_status');
    expect(receiver.requests.some((r) => r.path.endsWith('?moved'))).toBe(false);
  });
});
