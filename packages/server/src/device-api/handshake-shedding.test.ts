import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRootCa, makeServerCertificate, type TestCertificate } from '../../test/support/certificates';
import { captureClientHello } from '../../test/support/client-hello';
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
let hello: Buffer;
beforeAll(async () => {
  ca = await makeRootCa();
  identity = await makeServerCertificate(ca);
  hello = await captureClientHello();
});

/** A TLS server shedding with `limits`; counts handshakes that completed. */
async function sheddingServer(limits: Partial<HandshakeLimits>) {
  const server = tls.createServer({ key: identity.keyPem, cert: identity.certPem }, (socket) => socket.write('hi'));
  const served = { handshakes: 0 };
  server.on('secureConnection', () => (served.handshakes += 1));
  const counters: SheddingCounters = shedExcessHandshakes(server, {
    bucket: createTokenBucket(1000, 1000),
    concurrency: 1000,
    perAddress: 1000,
    maxLoopDelayMs: 50,
    lateness: { ms: () => 0, stop: () => {} },
    waitingPerAddress: 1000,
    waitingTotal: 1000,
    helloTimeoutMs: 10_000,
    handshakeTimeoutMs: 20_000,
    ...limits,
  });
  // What a failed test left open is closed with the server, so that closing it cannot hang.
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => sockets.add(socket));
  server.on('secureConnection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const close = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { server, counters, served, port, close };
}

/** A TLS client's whole attempt: served when the server's answer arrives. */
function attempt(port: number, localAddress?: string): Promise<'served' | 'shed'> {
  return new Promise((resolve) => {
    const socket = tls.connect({ socket: net.connect({ port, host: '127.0.0.1', localAddress }), ca: ca.certPem, servername: 'localhost' });
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

interface Stalled {
  closed: Promise<void>;
  /** performance.now() when the server closed it, once it has. */
  closedAt(): number | undefined;
  write(bytes: Buffer): void;
  close(): void;
}

/**
 * A client that connects, sends `bytes` (nothing: it never says hello; a ClientHello: its
 * handshake stays in flight) and then nothing more, until it closes or the server closes it.
 */
async function stalled(port: number, bytes = hello, localAddress?: string): Promise<Stalled> {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  socket.on('error', () => {});
  socket.on('data', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  if (bytes.length > 0) socket.write(bytes);
  let closedAt: number | undefined;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve(void (closedAt = performance.now()))));
  return { closed, closedAt: () => closedAt, write: (more) => void (socket.writable && socket.write(more)), close: () => socket.destroy() };
}

const silent = (port: number, localAddress?: string) => stalled(port, Buffer.alloc(0), localAddress);

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

  it('counts a connection against the handshakes only once its ClientHello is in', async () => {
    const capped = await sheddingServer({ concurrency: 2 });
    try {
      const quiet = [];
      for (let i = 0; i < 10; i++) quiet.push(await silent(capped.port));
      // The first 100 bytes of a ClientHello: a trickle that has not finished.
      for (let i = 0; i < 10; i++) quiet.push(await stalled(capped.port, hello.subarray(0, 100)));
      await settle();
      expect(capped.counters.inFlight()).toBe(0);
      expect(capped.counters.waiting()).toBe(20);
      expect(await attempt(capped.port)).toBe('served');
      expect(await attempt(capped.port)).toBe('served');
      expect(capped.counters.shed).toBe(0);
      for (const socket of quiet) socket.close();
    } finally {
      await capped.close();
    }
  });

  it('holds a few silent connections per address, the newest: a device behind the same address still gets in', async () => {
    const pool = await sheddingServer({ waitingPerAddress: 4 });
    try {
      const quiet = [];
      for (let i = 0; i < 4; i++) quiet.push(await silent(pool.port));
      const elsewhere = [await silent(pool.port, '127.0.0.2'), await silent(pool.port, '127.0.0.2')];
      await settle();
      expect(pool.counters.waiting()).toBe(6);
      expect(quiet[0].closedAt()).toBeUndefined();
      quiet.push(await silent(pool.port));
      await quiet[0].closed; // pushed out by the fifth, unasked
      expect(pool.counters.closedFor.pushedOut).toBe(1);
      // A device from the full address pushes out the oldest silent one in turn, and is served.
      expect(await attempt(pool.port)).toBe('served');
      await quiet[1].closed;
      await settle();
      expect(elsewhere.map((s) => s.closedAt())).toEqual([undefined, undefined]);
      expect(pool.counters.closedFor.pushedOut).toBe(2);
      for (const socket of [...quiet, ...elsewhere]) socket.close();
    } finally {
      await pool.close();
    }
  });

  it('holds at most waitingTotal silent connections in all, pushing out the oldest of any address', async () => {
    const pool = await sheddingServer({ waitingTotal: 3 });
    try {
      const quiet = [await silent(pool.port, '127.0.0.2'), await silent(pool.port, '127.0.0.3'), await silent(pool.port, '127.0.0.4')];
      await settle();
      quiet.push(await silent(pool.port, '127.0.0.5'));
      await quiet[0].closed;
      await settle();
      expect(pool.counters.waiting()).toBe(3);
      expect(quiet.slice(1).map((s) => s.closedAt())).toEqual([undefined, undefined, undefined]);
      for (const socket of quiet) socket.close();
    } finally {
      await pool.close();
    }
  });

  it('closes a connection whose ClientHello is not whole by the hello deadline, however it trickles', async () => {
    const timed = await sheddingServer({ helloTimeoutMs: 400 });
    try {
      const started = performance.now();
      const quiet = await silent(timed.port);
      const trickling = await stalled(timed.port, hello.subarray(0, 1));
      let sent = 1;
      const drip = setInterval(() => trickling.write(hello.subarray(sent, ++sent)), 50);
      await Promise.all([quiet.closed, trickling.closed]);
      clearInterval(drip);
      for (const socket of [quiet, trickling]) expect(socket.closedAt()! - started).toBeGreaterThanOrEqual(350);
      expect(timed.counters.closedFor.helloTimeout).toBe(2);
      expect(timed.counters.waiting()).toBe(0);
      expect(timed.counters.accepted).toBe(0);
    } finally {
      await timed.close();
    }
  });

  it('closes a handshake not over by the handshake deadline, counted from the accept, and only then', async () => {
    const timed = await sheddingServer({ helloTimeoutMs: 5_000, handshakeTimeoutMs: 1_500 });
    try {
      const started = performance.now();
      const late = await silent(timed.port);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      late.write(hello); // in time for the hello deadline; then it stalls
      const served = tls.connect({ port: timed.port, host: '127.0.0.1', ca: ca.certPem, servername: 'localhost' });
      await new Promise((resolve) => served.once('data', resolve));
      await late.closed;
      // From the accept (1.5 s), not from the ClientHello (2.5 s).
      expect(late.closedAt()! - started).toBeGreaterThanOrEqual(1_400);
      expect(late.closedAt()! - started).toBeLessThan(2_400);
      expect(timed.counters.closedFor.handshakeTimeout).toBe(1);
      expect(timed.counters.inFlight()).toBe(0);
      // A handshake that finished is not cut off by its deadline.
      await new Promise((resolve) => setTimeout(resolve, 1_700 - (performance.now() - started) + 500));
      expect(served.destroyed).toBe(false);
      served.destroy();
    } finally {
      await timed.close();
    }
  });

  it('keeps at most perAddress handshakes in flight from one address', async () => {
    const capped = await sheddingServer({ perAddress: 2 });
    try {
      const hanging = [await stalled(capped.port), await stalled(capped.port)];
      await settle();
      expect(capped.counters.inFlight()).toBe(2);
      expect(await attempt(capped.port)).toBe('shed');
      expect(capped.counters.shedFor.address).toBe(1);
      // Another address is not held back by it.
      expect(await attempt(capped.port, '127.0.0.2')).toBe('served');
      hanging[0].close();
      await settle();
      expect(await attempt(capped.port)).toBe('served');
      hanging[1].close();
    } finally {
      await capped.close();
    }
  });

  it('closes a connection whose first bytes cannot be TLS, before any TLS work', async () => {
    const plain = await sheddingServer({});
    try {
      const http = await stalled(plain.port, Buffer.from('GET /update HTTP/1.1\r\nHost: x\r\n\r\n'));
      await http.closed;
      expect(plain.counters.closedFor.notTls).toBe(1);
      expect(plain.counters.accepted).toBe(0);
      expect(plain.served.handshakes).toBe(0);
    } finally {
      await plain.close();
    }
  });
});
