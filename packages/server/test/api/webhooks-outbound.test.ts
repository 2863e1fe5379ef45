// The outbound client against a real local HTTPS receiver: what it refuses before connecting,
// how each failure is named, and that it trusts only the CAs it is given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookSender, failureKind, type OutboundOptions } from '../../src/webhooks/outbound';
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
    expect(refused).toMatchObject({ ok: false, status: null, error: 'forbidden_address' });
    expect(failureKind(refused.error)).toBe('host_resolution_failed');
    const literal = await post(receiver.url.replace('localhost', '127.0.0.1'), { allowPrivate: false });
    expect(literal.error).toBe('forbidden_address');
    expect(receiver.requests.length).toBe(before);
  });

  it('never reaches metadata endpoints, even with private addresses allowed', async () => {
    expect((await post('https://169.254.169.254/latest/meta-data/')).error).toBe('forbidden_address');
    expect((await post('https://[fd00:ec2::254]/latest/meta-data/')).error).toBe('forbidden_address');
  });

  it('names unresolvable hosts, untrusted certificates and non-https urls', async () => {
    const unresolvable = await post('https://no-such-host.invalid/hook');
    expect(unresolvable.error).toBe('host_resolution_failed');
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
