/**
 * Sheds new device connections before any TLS work (NervesHub's lesson: a fleet reconnecting at
 * once can spend every core on handshakes, and then nobody is served), and keeps sockets that
 * never say hello from holding the handshakes devices need: the admin API shares this event loop.
 * A new connection waits for its ClientHello (first-record.ts): at most `waitingPerAddress` per
 * source address (source-address.ts) and `waitingTotal` in all, a new one pushing the oldest out,
 * none longer than `helloTimeoutMs`. Then it is closed unless `admit` lets it through; a handshake
 * not over `handshakeTimeoutMs` after the accept is closed. A closed connection costs a device a
 * retry after its backoff; requests on established connections are never shed.
 */
import type { Server, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createOldestFirstPool, createPerKeyLimit } from './address-limits';
import { awaitFirstRecord } from './first-record';
import type { LoopLateness } from './loop-lateness';
import { sourceAddressKey } from './source-address';

export interface TokenBucket {
  /** True when a token was taken. */
  take(nowMs?: number): boolean;
}

export function createTokenBucket(ratePerSecond: number, burst: number, startMs = Date.now()): TokenBucket {
  const capacity = Math.max(burst, 1);
  let tokens = capacity;
  let refilledAt = startMs;
  return {
    take(nowMs = Date.now()) {
      // A clock step backwards adds nothing rather than removing tokens.
      tokens = Math.min(capacity, tokens + (Math.max(0, nowMs - refilledAt) * ratePerSecond) / 1000);
      refilledAt = Math.max(refilledAt, nowMs);
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}

/** Handshakes admitted even while the loop is late, so a busy process still serves devices. */
export const ALWAYS_IN_FLIGHT = 4;

export interface HandshakeLimits {
  bucket: TokenBucket;
  /** Handshakes in flight (handed to TLS, not yet secure, failed or closed) at most. */
  concurrency: number;
  /** Handshakes in flight from one source address at most: one address cannot take them all. */
  perAddress: number;
  /** Above this event-loop lateness only ALWAYS_IN_FLIGHT handshakes may be in flight. */
  maxLoopDelayMs: number;
  lateness: LoopLateness;
  /** Connections waiting for their ClientHello, per source address and in all. */
  waitingPerAddress: number;
  waitingTotal: number;
  /** From the accept: the ClientHello must be in by then, and the handshake over. */
  helloTimeoutMs: number;
  handshakeTimeoutMs: number;
}

export interface SheddingCounters {
  /** Connections handed to TLS. */
  accepted: number;
  /** Connections closed with their ClientHello in, before any TLS work; `shedFor` says why. */
  shed: number;
  shedFor: { concurrency: number; address: number; loop: number; rate: number };
  /** Connections the server closed before their ClientHello was in, or their handshake over. */
  closedFor: { pushedOut: number; helloTimeout: number; notTls: number; handshakeTimeout: number };
  /** Handshakes not finished yet. */
  inFlight(): number;
  /** Connections waiting for their ClientHello. */
  waiting(): number;
}

/** The key of a connection's peer: the same on the raw socket and the TLS socket made from it. */
const peerKey = (socket: Socket) => `${socket.remoteAddress} ${socket.remotePort}`;

const ignore = () => {};

export function shedExcessHandshakes(server: Server, limits: HandshakeLimits): SheddingCounters {
  // The TLS socket the server makes of a raw one is another object: they meet by their peer.
  const inFlight = new Map<string, () => void>();
  const inFlightFrom = createPerKeyLimit(limits.perAddress);
  const waiting = createOldestFirstPool<Socket>(limits.waitingPerAddress, limits.waitingTotal);
  const counters: SheddingCounters = {
    accepted: 0,
    shed: 0,
    shedFor: { concurrency: 0, address: 0, loop: 0, rate: 0 },
    closedFor: { pushedOut: 0, helloTimeout: 0, notTls: 0, handshakeTimeout: 0 },
    inFlight: () => inFlight.size,
    waiting: () => waiting.size(),
  };
  // The TLS server's own listener wraps a socket in TLS: it gets each one once its ClientHello is in.
  const startTls = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');

  function close(socket: Socket, reason: keyof SheddingCounters['closedFor']) {
    if (socket.destroyed) return;
    counters.closedFor[reason] += 1;
    waiting.delete(socket);
    socket.destroy();
  }

  function shed(socket: Socket, reason: keyof SheddingCounters['shedFor']) {
    counters.shed += 1;
    counters.shedFor[reason] += 1;
    socket.destroy();
  }

  function admit(socket: Socket, address: string, acceptedAt: number) {
    const count = inFlight.size;
    if (count >= limits.concurrency) return shed(socket, 'concurrency');
    if (inFlightFrom.count(address) >= limits.perAddress) return shed(socket, 'address');
    if (count >= ALWAYS_IN_FLIGHT && limits.lateness.ms() > limits.maxLoopDelayMs) return shed(socket, 'loop');
    if (!limits.bucket.take()) return shed(socket, 'rate');
    counters.accepted += 1;
    const key = peerKey(socket);
    if (!inFlight.has(key)) {
      inFlightFrom.take(address);
      const deadline = setTimeout(() => {
        finished();
        close(socket, 'handshakeTimeout');
      }, acceptedAt + limits.handshakeTimeoutMs - performance.now());
      const finished = () => {
        if (inFlight.get(key) !== finished) return;
        inFlight.delete(key);
        inFlightFrom.release(address);
        clearTimeout(deadline);
      };
      inFlight.set(key, finished);
      socket.once('close', finished);
    }
    for (const listener of startTls) listener.call(server, socket);
  }

  server.on('connection', (socket: Socket) => {
    // Until TLS takes the socket, its errors (a reset) are ours: unheard, they would throw.
    socket.on('error', ignore);
    // A socket already gone has no peer.
    if (socket.remoteAddress === undefined) return socket.destroy();
    const address = sourceAddressKey(socket.remoteAddress);
    const acceptedAt = performance.now();
    for (const old of waiting.add(address, socket)) close(old, 'pushedOut');
    const helloDeadline = setTimeout(() => close(socket, 'helloTimeout'), limits.helloTimeoutMs);
    socket.once('close', () => {
      clearTimeout(helloDeadline);
      waiting.delete(socket);
    });
    awaitFirstRecord(socket, {
      notTls: () => close(socket, 'notTls'),
      complete: () => {
        clearTimeout(helloDeadline);
        waiting.delete(socket);
        admit(socket, address, acceptedAt);
      },
    });
  });
  // The handshake ends secure, failed (then the socket closes, but maybe only later), or closed.
  const settle = (tlsSocket: TLSSocket) => inFlight.get(peerKey(tlsSocket))?.();
  server.on('secureConnection', settle);
  server.on('tlsClientError', (_error: Error, tlsSocket: TLSSocket) => {
    settle(tlsSocket);
    // A listener here stops Node from destroying the socket itself; nothing else wants it.
    tlsSocket.destroy();
  });
  server.on('close', () => limits.lateness.stop());
  return counters;
}
