/**
 * Sheds new device connections before any TLS work is done (NervesHub's lesson: a fleet
 * reconnecting at once can spend every core on handshakes, and then nobody gets served). The
 * admin API shares this process's event loop, so the device API must leave it room.
 *
 * A TCP connection is admitted on the server's `connection` event, ahead of the TLS layer's own
 * listener, when all of these hold; otherwise it is destroyed before its ClientHello is read:
 *
 * - fewer than `concurrency` admitted handshakes are still in flight (accepted, not yet secure,
 *   failed or closed): a burst of accepts in one turn cannot queue more TLS work than that;
 * - the event loop is on time (`loop-lateness.ts`, at most `maxLoopDelayMs` behind), or fewer
 *   than ALWAYS_IN_FLIGHT handshakes are in flight, so devices are still served, slowly, while
 *   something else keeps the loop late;
 * - a token of the rate limit is left (`rate` per second, `burst` at once): a fixed ceiling.
 *
 * A shed connection costs the device a retry after its jittered backoff, not an outage. Requests
 * on connections already established are never shed.
 */
import type { Server, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { LoopLateness } from './loop-lateness';

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
  /** Admitted handshakes in flight at most. */
  concurrency: number;
  /** Above this event-loop lateness only ALWAYS_IN_FLIGHT handshakes may be in flight. */
  maxLoopDelayMs: number;
  lateness: LoopLateness;
}

export interface SheddingCounters {
  accepted: number;
  shed: number;
  /** Why connections were shed (they add up to `shed`). */
  shedFor: { concurrency: number; loop: number; rate: number };
  /** Admitted handshakes not finished yet. */
  inFlight(): number;
}

/** The key of a connection's peer: the same on the raw socket and the TLS socket made from it. */
const peerKey = (socket: Socket) => `${socket.remoteAddress} ${socket.remotePort}`;

export function shedExcessHandshakes(server: Server, limits: HandshakeLimits): SheddingCounters {
  // The TLS socket the server makes of a raw one is another object: they meet by their peer.
  const inFlight = new Map<string, () => void>();
  const counters: SheddingCounters = { accepted: 0, shed: 0, shedFor: { concurrency: 0, loop: 0, rate: 0 }, inFlight: () => inFlight.size };

  function shed(socket: Socket, reason: keyof SheddingCounters['shedFor']) {
    counters.shed += 1;
    counters.shedFor[reason] += 1;
    socket.destroy();
  }

  // prependListener: runs before the TLS server wraps the socket.
  server.prependListener('connection', (socket: Socket) => {
    const count = inFlight.size;
    if (count >= limits.concurrency) return shed(socket, 'concurrency');
    if (count >= ALWAYS_IN_FLIGHT && limits.lateness.ms() > limits.maxLoopDelayMs) return shed(socket, 'loop');
    if (!limits.bucket.take()) return shed(socket, 'rate');
    counters.accepted += 1;
    const key = peerKey(socket);
    // A socket already gone has no peer: nothing to wait for.
    if (socket.remotePort === undefined || inFlight.has(key)) return;
    const finished = () => {
      if (inFlight.get(key) === finished) inFlight.delete(key);
    };
    inFlight.set(key, finished);
    socket.once('close', finished);
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
