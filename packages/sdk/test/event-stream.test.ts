/** The SSE parser, and followEvents against a real server's GET /events/stream (resume after a drop). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCanopyClient, createSseParser, followEvents, type CanopyClient, type CanopyEvent } from '../src/browser';
import { startTestServer, type TestServer } from '../../server/test/support/server';

describe('SSE parser', () => {
  it('joins messages split across chunks, keeps the last id, skips comments, reads retry', () => {
    const parser = createSseParser();
    expect(parser.push(': stream open\nretry: 1500\n\nid: a\nda')).toEqual([]);
    expect(parser.push('ta: {"n":1}\r')).toEqual([]);
    expect(parser.push('\n\r\n')).toEqual([{ id: 'a', event: 'message', data: '{"n":1}' }]);
    expect(parser.push('data: x\ndata: y\n\n')).toEqual([{ id: 'a', event: 'message', data: 'x\ny' }]);
    expect(parser.retryMs).toBe(1500);
  });
});

let server: TestServer;
let client: CanopyClient;
beforeAll(async () => {
  server = await startTestServer();
  client = createCanopyClient({ baseUrl: server.url, apiKey: server.apiKey });
});
afterAll(() => server?.close());

describe('followEvents', () => {
  it('receives live events, and after the stream was dropped resumes with Last-Event-ID', async () => {
    const product = (await server.api('POST', '/products', { name: 'follow' })).body.product;
    const device = (await server.api('POST', '/devices', { identifier: 'follow-1', product_prn: product.prn })).body.device;
    const seen: CanopyEvent[] = [];
    const controller = new AbortController();
    const following = followEvents(client, { filters: { type: 'device', resource_prn: device.prn }, onEvent: (e) => seen.push(e), signal: controller.signal, reconnectMs: 100 });
    const until = async (n: number) => {
      for (let i = 0; i < 100 && seen.length < n; i++) await new Promise((r) => setTimeout(r, 100));
      expect(seen.length).toBe(n);
    };
    await new Promise((r) => setTimeout(r, 300));
    await server.api('PATCH', `/devices/${device.prn}`, { description: 'one' });
    await until(1);
    expect(seen[0].data.type).toBe('updated');
    controller.abort();
    await following;

    // Two events while nobody listens; resuming after the first one seen brings exactly those.
    await server.api('PATCH', `/devices/${device.prn}`, { description: 'two' });
    await server.api('PATCH', `/devices/${device.prn}`, { description: 'three' });
    const again = new AbortController();
    const resumed = followEvents(client, { filters: { type: 'device', resource_prn: device.prn }, lastEventId: seen[0].prn, onEvent: (e) => seen.push(e), signal: again.signal });
    await until(3);
    expect(new Set(seen.map((e) => e.prn)).size).toBe(3);
    again.abort();
    await resumed;
  });

  it('stops on a refusal and reports it', async () => {
    const anonymous = createCanopyClient({ baseUrl: server.url });
    let refused: unknown;
    await followEvents(anonymous, { onEvent: () => {}, onError: (e) => (refused = e) });
    expect(refused).toMatchObject({ status: 401, code: 'unauthenticated' });
  });
});
