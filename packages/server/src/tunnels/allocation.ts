/**
 * The server side of a tunnel being opened: its WireGuard UDP port (from the configured ranges)
 * and the two addresses inside the tunnel (from the device's CIDR blocks). These are resources of
 * the tunnel server as a whole, so no two open tunnels of any organization may share one: ports
 * would clash on the server's sockets, addresses in its routing table.
 *
 * Every allocation takes one transaction-scoped advisory lock, so allocations from any number of
 * server processes happen one after another, each seeing the tunnels the previous ones opened.
 * The unique partial indexes on open tunnels are the backstop should anything bypass the lock.
 */
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { conflict } from '../http/errors';
import { usableAddresses, type CidrBlock } from './cidr';
import { firstFreePort, type PortRange } from './port-ranges';
import { tunnels } from './schema';

/** An arbitrary constant naming this lock among the advisory locks of the database. */
const ALLOCATION_LOCK = 0x7475_6e6e_656c;

export interface ServerSide {
  serverTunnelPort: number;
  serverProxyIpAddress: string;
  deviceProxyIpAddress: string;
}

/**
 * The first `count` usable addresses of the blocks, in order, that are not in `used`. A block
 * has its free addresses within its first `used.size + count`, so this ends quickly even in a /64.
 */
export function freeAddresses(blocks: CidrBlock[], used: ReadonlySet<string>, count: number): string[] {
  const chosen = new Set<string>();
  for (const block of blocks) {
    for (const address of usableAddresses(block)) {
      if (!used.has(address)) chosen.add(address);
      if (chosen.size === count) return [...chosen];
    }
  }
  return [...chosen];
}

async function inUse(tx: Executor): Promise<{ ports: Set<number>; addresses: Set<string> }> {
  const rows = await tx
    .select({ port: tunnels.serverTunnelPort, server: tunnels.serverProxyIpAddress, device: tunnels.deviceProxyIpAddress })
    .from(tunnels)
    .where(eq(tunnels.state, 'open'));
  const ports = new Set<number>();
  const addresses = new Set<string>();
  for (const row of rows) {
    if (row.port !== null) ports.add(row.port);
    if (row.server !== null) addresses.add(row.server);
    if (row.device !== null) addresses.add(row.device);
  }
  return { ports, addresses };
}

/** Call inside the transaction that opens the tunnel; the lock is held until it ends. */
export async function allocateServerSide(tx: Executor, portRanges: PortRange[], deviceBlocks: CidrBlock[]): Promise<ServerSide> {
  await tx.execute(sql`select pg_advisory_xact_lock(${ALLOCATION_LOCK})`);
  const used = await inUse(tx);
  const serverTunnelPort = firstFreePort(portRanges, used.ports);
  if (serverTunnelPort === null) throw conflict('tunnel_ports_exhausted', {});
  const addresses = freeAddresses(deviceBlocks, used.addresses, 2);
  if (addresses.length < 2) throw conflict('tunnel_addresses_exhausted', { field: 'cidr_blocks' });
  const [serverProxyIpAddress, deviceProxyIpAddress] = addresses;
  return { serverTunnelPort, serverProxyIpAddress, deviceProxyIpAddress };
}
