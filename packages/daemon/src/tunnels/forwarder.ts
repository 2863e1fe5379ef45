/**
 * The device's proxy inside the tunnel: listens on the tunnel address only
 * (device_proxy_ip_address:device_proxy_port) and joins each connection to
 * 127.0.0.1:device_tunnel_port. Closing it cuts the connections in flight too.
 */
import net from 'node:net';

export interface Forwarder {
  close(): Promise<void>;
}

export async function startForwarder(listen: { address: string; port: number }, targetPort: number): Promise<Forwarder> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  // Half-open allowed, so a client that ends its side still reads the answer (end travels through).
  const server = net.createServer({ allowHalfOpen: true }, (incoming) => {
    track(incoming);
    const local = net.connect({ host: '127.0.0.1', port: targetPort, allowHalfOpen: true });
    track(local);
    incoming.on('error', () => local.destroy());
    local.on('error', () => incoming.destroy());
    incoming.pipe(local);
    local.pipe(incoming);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: listen.address, port: listen.port }, () => resolve());
  });
  return {
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
