/**
 * Sheds new device connections beyond a rate before any TLS work is done (NervesHub's lesson:
 * a fleet reconnecting at once can spend every core on handshakes, and then nobody gets served).
 * A token bucket counts TCP connections on the server's `connection` event, ahead of the TLS
 * layer's own listener; a connection without a token is destroyed before its ClientHello is read.
 * Devices retry with backoff, so a shed connection costs them a retry, not an outage.
 */
import type { Server, Socket } from 'node:net';

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

export interface SheddingCounters {
  accepted: number;
  shed: number;
}

export function shedExcessHandshakes(server: Server, bucket: TokenBucket): SheddingCounters {
  const counters: SheddingCounters = { accepted: 0, shed: 0 };
  // prependListener: runs before the TLS server wraps the socket.
  server.prependListener('connection', (socket: Socket) => {
    if (bucket.take()) {
      counters.accepted += 1;
      return;
    }
    counters.shed += 1;
    socket.destroy();
  });
  return counters;
}
