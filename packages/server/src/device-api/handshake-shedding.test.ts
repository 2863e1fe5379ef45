import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRootCa, makeServerCertificate, type TestCertificate } from '../../test/support/certificates';
import { createTokenBucket, shedExcessHandshakes, type SheddingCounters } from './handshake-shedding';

describe('createTokenBucket', () => {
  it('allows a burst, then the rate', () => {
    const t0 = 1_000_000;
    const bucket = createTokenBucket(10, 3, t0);
    expect([bucket.take(t0), bucket.take(t0), bucket.take(t0), bucket.take(t0)]).toEqual([true, true, true, false]);
    expect(bucket.take(t0 + 50)).toBe(false); // half a token
    expect(bucket.take(t0 + 100)).toBe(true); // one token after 100 ms at 10/s
    expect(bucket.take(t0 + 10_000)).toBe(true);
  });
});

describe('shedExcessHandshakes', () => {
  let ca: TestCertificate;
  let server: tls.Server;
  let counters: SheddingCounters;
  let port: number;
  let handshakes = 0;

  beforeAll(async () => {
    ca = await makeRootCa();
    const identity = await makeServerCertificate(ca);
    server = tls.createServer({ key: identity.keyPem, cert: identity.certPem }, (socket) => socket.end('hi'));
    server.on('secureConnection', () => (handshakes += 1));
    counters = shedExcessHandshakes(server, createTokenBucket(5, 5));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function attempt(): Promise<'served' | 'shed'> {
    return new Promise((resolve) => {
      const socket = tls.connect({ port, host: '127.0.0.1', ca: ca.certPem, servername: 'localhost' });
      // Served once the server's answer arrives: it writes it in the same event that counts the
      // handshake, so the count is final by then (the client's own secureConnect can come first).
      socket.on('data', () => {
        socket.end();
        resolve('served');
      });
      socket.on('error', () => resolve('shed'));
      socket.on('close', () => resolve('shed'));
    });
  }

  it('closes connections beyond the rate before the TLS handshake, and serves again later', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, attempt));
    const served = results.filter((r) => r === 'served').length;
    expect(served).toBeGreaterThanOrEqual(5);
    expect(served).toBeLessThan(30);
    expect(counters.shed).toBe(30 - counters.accepted);
    // Shed connections never reached the handshake.
    expect(handshakes).toBe(served);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await attempt()).toBe('served');
  });
});
