/**
 * The device's own networks, so the tunnel's addresses can come from configured blocks that do not
 * clash with them (remote-access-tunnels.md: "give at least two distinct blocks so one can be
 * chosen that does not clash with the device's networks").
 */
import os from 'node:os';
import { overlaps, parseCidr, type Cidr } from './cidr.ts';

/** Every interface address's network, except the addresses of the daemon's own tunnels. */
export function deviceNetworks(ownTunnelAddresses: ReadonlySet<string> = new Set()): Cidr[] {
  const networks: Cidr[] = [];
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (ownTunnelAddresses.has(address.address) || !address.cidr) continue;
      const cidr = parseCidr(address.cidr);
      if (cidr) networks.push(cidr);
    }
  }
  return networks;
}

/** The configured blocks (as written) that overlap none of `networks`, in their order. */
export function freeBlocks(configured: readonly string[], networks: readonly Cidr[]): string[] {
  return configured.filter((text) => {
    const block = parseCidr(text);
    return block !== null && !networks.some((network) => overlaps(block, network));
  });
}
