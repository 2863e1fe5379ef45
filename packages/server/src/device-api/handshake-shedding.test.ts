import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRootCa, makeServerCertificate, type TestCertificate } from '../../test/support/certificates';
import { ALWAYS_IN_FLIGHT, createTokenBucket, shedExcessHandshakes, type HandshakeLimits, type SheddingCounters } from './handshake-shedding';
import { watchLoopLateness } from './loop-lateness';

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

describe('watchLoopLateness', () => {
  it('sees a turn that runs long while it runs, and on time again after', async () => {
    const lateness = watchLoopLateness(10);
    try {
      await new Promise((resolve) => setTimeout(resolve, 30));
      const started = performance.now();
      while (performance.now() - started < 120); // a long turn
      expect(lateness.ms()).toBeGreaterThanOrEqual(100);
      // The next turn still sees it, until the timer has run on time again.
      await new Promise((resolve) => setImmediate(resolve));
      expect(lateness.ms()).toBeGreaterThanOrEqual(100);
      // On a loaded machine a timer may run late by itself: wait for one on time.
      const deadline = Date.now() + 5_000;
      while (lateness.ms() >= 50 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(lateness.ms()).toBeLessThan(50);
    } finally {
      lateness.stop();
    }
  });
});

let ca: TestCertificate;
let identity: TestCertificate;
beforeAll(async () => {
  ca = await makeRootCa();
  identity = await makeServerCertificate(ca);
});

/** A TLS server shedding with `limits`; counts handshakes that completed. */
async function sheddingServer(limits: Partial<HandshakeLimits>) {
  const server = tls.createServer({ key: identity.keyPem, cert: identity.certPem }, (socket) => socket.end('hi'));
  const served = { handshakes: 0 };
  server.on('secureConnection', () => (served.handshakes += 1));
  const counters: SheddingCounters = shedExcessHandshakes(server, {
    bucket: createTokenBucket(1000, 1000),
    concurrency: 1000,
    maxLoopDelayMs: 50,
    lateness: { ms: () => 0, stop: () => {} },
    ...limits,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return { server, counters, served, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A TLS client's whole attempt: served when the server's answer arrives. */
function attempt(port: number): Promise<'served' | 'shed'> {
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

/** A client that connects and never says hello: its handshake stays in flight until it closes. */
async function stalled(port: number): Promise<{ closed: Promise<void>; close(): void }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { closed, close: () => socket.destroy() };
}

/** Lets the server's side of the sockets catch up with the client's. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('shedExcessHandshakes', () => {
  let rated: Awaited<ReturnType<typeof sheddingServer>>;
  beforeAll(async () => {
    rated = await sheddingServer({ bucket: createTokenBucket(5, 5) });
  });
  afterAll(() => rated.close());

  it('closes connections beyond the rate before the TLS handshake, and serves again later', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => attempt(rated.port)));
    const served = results.filter((r) => r === 'served').length;
    expect(served).toBeGreaterThanOrEqual(5);
    expect(served).toBeLessThan(30);
    expect(rated.counters.shed).toBe(30 - rated.counters.accepted);
    expect(rated.counters.shedFor.rate).toBe(rated.counters.shed);
    // Shed connections never reached the handshake.
    expect(rated.served.handshakes).toBe(served);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await attempt(rated.port)).toBe('served');
    expect(rated.counters.inFlight()).toBe(0);
  });

  it('keeps at most `concurrency` handshakes in flight, and takes new ones as they finish', async () => {
    const capped = await sheddingServer({ concurrency: 3 });
    try {
      const hanging = [await stalled(capped.port), await stalled(capped.port), await stalled(capped.port)];
      await settle();
      expect(capped.counters.inFlight()).toBe(3);
      const fourth = await stalled(capped.port);
      await fourth.closed; // closed by the server, unasked
      expect(capped.counters.shedFor.concurrency).toBe(1);
      expect(await attempt(capped.port)).toBe('shed');
      hanging[0].close();
      await settle();
      expect(capped.counters.inFlight()).toBe(2);
      // A handshake that completes leaves the count too.
      expect(await attempt(capped.port)).toBe('served');
      await settle();
      expect(capped.counters.inFlight()).toBe(2);
      expect(capped.served.handshakes).toBe(1);
      for (const socket of hanging) socket.close();
    } finally {
      await capped.close();
    }
  });

  it('while the loop is late, admits only a few handshakes at a time', async () => {
    let lateMs = 0;
    const watched = await sheddingServer({ lateness: { ms: () => lateMs, stop: () => {} } });
    try {
      lateMs = 51;
      const hanging = [];
      for (let i = 0; i < ALWAYS_IN_FLIGHT; i++) hanging.push(await stalled(watched.port));
      await settle();
      expect(watched.counters.inFlight()).toBe(ALWAYS_IN_FLIGHT);
      expect(await attempt(watched.port)).toBe('shed');
      expect(watched.counters.shedFor.loop).toBe(1);
      lateMs = 50; // at the limit is on time
      expect(await attempt(watched.port)).toBe('served');
      for (const socket of hanging) socket.close();
    } finally {
      await watched.close();
    }
  });
});
