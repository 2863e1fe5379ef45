/**
 * Connections that hold a TLS port without ever finishing a ClientHello: `silent` ones send
 * nothing, `trickle` ones send a ClientHello one byte a second. Each one closed (by the server)
 * is opened again after `reopenAfterMs`, for as long as they run: what an attacker keeping a
 * device API's handshakes busy does. Bounded: `stop()` ends them all.
 */
import net from 'node:net';

export interface StallingClientsOptions {
  host: string;
  port: number;
  /** Source addresses to connect from; [undefined] lets the system choose. */
  localAddresses: (string | undefined)[];
  /** Connections held from each source address; every other one trickles. */
  perAddress: number;
  /** The ClientHello the trickling ones send. */
  hello: Buffer;
  reopenAfterMs: number;
}

export interface StallingStats {
  opened: number;
  /** Closed by the server (or failed), not by stop(). */
  closed: number;
  /** Bytes the trickling connections sent. */
  trickled: number;
}

export interface StallingClients {
  stats(): StallingStats;
  stop(): StallingStats;
}

export function holdStallingConnections(options: StallingClientsOptions): StallingClients {
  const stats: StallingStats = { opened: 0, closed: 0, trickled: 0 };
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;

  function later(ms: number, run: () => void, repeat = false) {
    const timer = (repeat ? setInterval : setTimeout)(() => {
      if (!repeat) timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
    return timer;
  }

  function hold(localAddress: string | undefined, trickle: boolean) {
    if (stopped) return;
    const socket = net.connect({ host: options.host, port: options.port, localAddress });
    stats.opened += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('data', () => {});
    let sent = 0;
    const drip = trickle
      ? later(
          1000,
          () => {
            if (sent >= options.hello.length || !socket.writable) return;
            socket.write(options.hello.subarray(sent, sent + 1));
            sent += 1;
            stats.trickled += 1;
          },
          true,
        )
      : null;
    socket.on('close', () => {
      sockets.delete(socket);
      if (drip) {
        clearInterval(drip);
        timers.delete(drip);
      }
      if (stopped) return;
      stats.closed += 1;
      later(options.reopenAfterMs, () => hold(localAddress, trickle));
    });
  }

  for (const address of options.localAddresses) for (let i = 0; i < options.perAddress; i++) hold(address, i % 2 === 1);
  return {
    stats: () => ({ ...stats }),
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      return { ...stats };
    },
  };
}
