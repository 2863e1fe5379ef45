/**
 * A TCP load balancer for tests: each connection goes to the next backend in turn, bytes passed
 * through untouched (so the device API's mutual TLS runs end to end between device and server,
 * as behind a layer-4 balancer). A backend that refuses the connection (its process is dead) is
 * skipped for the next one, as a balancer's redispatch does; a connection already open to a
 * process that dies is simply cut, and the client reconnects.
 */
import net from 'node:net';
import { once } from 'node:events';

export interface RoundRobinProxy {
  port: number;
  url(scheme: 'http' | 'https'): string;
  /** Connections handed to each backend so far, by the backend's index. */
  connections: number[];
  close(): Promise<void>;
}

export async function startRoundRobinProxy(backendPorts: number[]): Promise<RoundRobinProxy> {
  const connections = backendPorts.map(() => 0);
  const open = new Set<net.Socket>();
  let next = 0;

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    const connect = (tries: number) => {
      if (tries === backendPorts.length || client.destroyed) {
        client.destroy();
        return;
      }
      const index = next++ % backendPorts.length;
      const upstream = net.connect({ host: '127.0.0.1', port: backendPorts[index] });
      open.add(upstream);
      upstream.on('close', () => open.delete(upstream));
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        connections[index]++;
        upstream.setNoDelay(true);
        client.setNoDelay(true);
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
        upstream.on('close', () => client.destroy());
        client.on('close', () => upstream.destroy());
      });
      upstream.on('error', () => {
        if (connected) client.destroy();
        else connect(tries + 1);
      });
    };
    connect(0);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    url: (scheme) => `${scheme}://127.0.0.1:${port}`,
    connections,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
