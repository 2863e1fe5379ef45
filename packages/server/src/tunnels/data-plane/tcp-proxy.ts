/**
 * The operator's way in: a TCP listener on the server's tunnel address at server_proxy_port,
 * forwarding each accepted connection to the device's proxy (device_proxy_ip_address:
 * device_proxy_port) through the tunnel. A source outside cidr_block_allowlist (when it is not
 * empty) is closed at once, before any byte is read or any connection to the device is made.
 */
import net from 'node:net';
import { parseCidr, parseIp, type CidrBlock } from '../cidr';

export interface TcpProxy {
  address: string;
  port: number;
  close(): Promise<void>;
}

function contains(block: CidrBlock, address: string): boolean {
  const ip = parseIp(address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address);
  if (!ip || ip.family !== block.family) return false;
  const bits = block.family === 4 ? 32 : 128;
  const shift = BigInt(bits - block.prefix);
  return ip.value >> shift === block.network >> shift;
}

export function allowedSource(allowlist: readonly string[], address: string | undefined): boolean {
  if (allowlist.length === 0) return true;
  if (!address) return false;
  return allowlist.some((text) => {
    const block = parseCidr(text);
    return block !== null && contains(block, address);
  });
}

export async function startTcpProxy(options: {
  listen: { address: string; port: number };
  target: { address: string; port: number };
  allowlist: readonly string[];
  onRefused?: (source: string | undefined) => void;
}): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  // Half-open allowed, so a client that ends its side still reads the answer (end travels through).
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    track(client);
    if (!allowedSource(options.allowlist, client.remoteAddress)) {
      options.onRefused?.(client.remoteAddress);
      client.resetAndDestroy();
      return;
    }
    const device = net.connect({ host: options.target.address, port: options.target.port, allowHalfOpen: true });
    track(device);
    client.on('error', () => device.destroy());
    device.on('error', () => client.destroy());
    client.pipe(device);
    device.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.listen.address, port: options.listen.port }, () => resolve());
  });
  return {
    ...options.listen,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
