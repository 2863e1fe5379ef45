/**
 * Keep-alive HTTPS connections to webhook receivers: one TLS handshake per connection, not per
 * delivery. Connections are grouped by the address they were opened to, not only the host name:
 * the sender resolves and checks the name before every request, then asks for a connection to
 * exactly that address (outbound.ts), so a changed DNS answer is checked and gets connections of
 * its own while the old ones idle out. Bounded three ways: idle connections close after `idleMs`;
 * at most `maxSocketsPerOrigin` per (name, address, port); at most `maxOrigins` keep connections.
 * Past that the least recently used idle origin is closed to make room; when every one is busy
 * the request gets a connection of its own, closed after the answer.
 */
import https from 'node:https';
import type { SecureContext } from 'node:tls';

export interface PoolLimits {
  idleMs: number;
  maxSocketsPerOrigin: number;
  maxOrigins: number;
}

export const DEFAULT_POOL_LIMITS: PoolLimits = {
  // Below the 5 s many servers (Node's among them) keep an idle connection: closing first
  // avoids sending on a connection the receiver is closing at that moment.
  idleMs: 4_000,
  maxSocketsPerOrigin: 64,
  maxOrigins: 256,
};

/** Where one request is sent through; `release()` once its answer is read or it failed. */
export interface PooledAgent {
  agent: https.Agent;
  release(): void;
}

interface Origin {
  agent: https.Agent;
  inFlight: number;
}

export class ReceiverConnections {
  /** Map order is recency of use: the first entry is the least recently used origin. */
  private readonly origins = new Map<string, Origin>();
  private readonly unpooled: https.Agent;

  constructor(
    private readonly limits: PoolLimits,
    private readonly secureContext: SecureContext | undefined,
  ) {
    this.unpooled = new https.Agent({ keepAlive: false, secureContext });
  }

  /** `origin` must name the checked address the connection goes to (see the file comment). */
  acquire(origin: string): PooledAgent {
    let entry = this.origins.get(origin);
    if (entry) this.origins.delete(origin);
    else if (this.origins.size < this.limits.maxOrigins || this.closeLeastRecentIdle()) entry = this.open();
    else return { agent: this.unpooled, release: () => {} };
    this.origins.set(origin, entry);
    const taken = entry;
    taken.inFlight++;
    let released = false;
    return {
      agent: taken.agent,
      release: () => {
        if (!released) taken.inFlight--;
        released = true;
      },
    };
  }

  /** How many origins hold a pool right now (for tests and diagnostics). */
  get size(): number {
    return this.origins.size;
  }

  close(): void {
    for (const { agent } of this.origins.values()) agent.destroy();
    this.origins.clear();
    this.unpooled.destroy();
  }

  private open(): Origin {
    const { idleMs, maxSocketsPerOrigin } = this.limits;
    const agent = new https.Agent({
      keepAlive: true,
      // `timeout` is how long a free (idle) connection is kept; the agent closes it then.
      timeout: idleMs,
      maxSockets: maxSocketsPerOrigin,
      maxFreeSockets: maxSocketsPerOrigin,
      // Reuse the most recently freed connection, so the ones a burst opened beyond the steady
      // need go idle and are closed.
      scheduling: 'lifo',
      secureContext: this.secureContext,
    });
    return { agent, inFlight: 0 };
  }

  private closeLeastRecentIdle(): boolean {
    for (const [origin, entry] of this.origins) {
      if (entry.inFlight > 0) continue;
      entry.agent.destroy();
      this.origins.delete(origin);
      return true;
    }
    return false;
  }
}
