/**
 * The tunnel interface that carries traffic (contract: interface.ts). Per tunnel: `wireguard-go
 * <name>` (userspace; returns once the interface exists), one `ip -batch` (the device's address,
 * link up, a host route to the server's tunnel address), `wg setconf` from a temporary root-only
 * file without wg-quick's Address line and the canopy comments, then the forwarder (forwarder.ts)
 * for device_tunnel_port when port_ranges allows it, or for a shell tunnel (port 0) when `shell`
 * allows it the PTY service (shell-service.ts). `ip link del` takes it all down.
 * Restart: up() first removes an interface of the same name, so a tunnel a killed daemon left is
 * rebuilt from its file (same key: the server's peer is unchanged and traffic resumes), and
 * prune() removes `cnpy*` interfaces that have no file.
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import type { Logger } from '../log.ts';
import { run, wgSetconf } from './commands.ts';
import { startForwarder, type Forwarder } from './forwarder.ts';
import type { LocalTunnel, TunnelInterface } from './interface.ts';
import { portAllowed, SHELL_TUNNEL_PORT, type PortRange } from './port-ranges.ts';
import { startShellService } from './shell-service.ts';

export const DEVICE_INTERFACE_PREFIX = 'cnpy';

const prefixLength = (address: string) => (address.includes(':') ? 128 : 32);

/** wg(8)'s format from the daemon's wg-quick file: comments and Address dropped. */
export function wgSetconfText(wgQuick: string): string {
  return wgQuick
    .split('\n')
    .filter((line) => !line.startsWith('#') && !/^\s*Address\s*=/i.test(line))
    .join('\n');
}

/** The server's tunnel address: the peer's AllowedIPs in the file. */
function serverAddressOf(wgQuick: string): string | null {
  return /^AllowedIPs\s*=\s*([^/\s,]+)/m.exec(wgQuick)?.[1] ?? null;
}

async function removeInterface(name: string): Promise<void> {
  // sysfs first (where mounted): `ip link del` of a name that is not there is a tool started for nothing.
  if (existsSync('/sys/class/net') && !existsSync(`/sys/class/net/${name}`)) return;
  await run('ip', ['link', 'del', 'dev', name]).catch(() => undefined);
}

/** `wireguard-go NAME`; if a leftover sysfs did not show holds the name, removes it and tries once more. */
async function startWireguardGo(name: string): Promise<void> {
  try {
    await run('wireguard-go', [name]);
  } catch {
    await run('ip', ['link', 'del', 'dev', name]).catch(() => undefined);
    await run('wireguard-go', [name]);
  }
}

export async function deviceInterfaces(): Promise<string[]> {
  const out = await run('ip', ['-o', 'link', 'show']);
  return out
    .split('\n')
    .map((line) => /^\d+:\s+([^:@\s]+)/.exec(line)?.[1])
    .filter((name): name is string => !!name && name.startsWith(DEVICE_INTERFACE_PREFIX));
}

export function wireguardTunnelInterface(options: { log: Logger; portRanges: readonly PortRange[]; shell?: boolean }): TunnelInterface {
  const { log, portRanges } = options;
  const shell = options.shell ?? true;
  /** Each tunnel's forwarder or shell service, whichever listens on its proxy port. */
  const forwarders = new Map<string, Forwarder>();

  async function down(tunnel: LocalTunnel): Promise<void> {
    const forwarder = forwarders.get(tunnel.prn);
    forwarders.delete(tunnel.prn);
    await forwarder?.close();
    await removeInterface(tunnel.interfaceName);
  }

  return {
    async up(tunnel) {
      await down(tunnel);
      const file = await fs.readFile(tunnel.configPath, 'utf8');
      const serverAddress = serverAddressOf(file);
      if (!serverAddress) throw new Error(`${tunnel.configPath}: no peer AllowedIPs`);
      const name = tunnel.interfaceName;
      await startWireguardGo(name);
      try {
        // One `ip` run for the three changes: each tool started is on the way to the first byte
        // (about 0.1 s on a quiet machine, up to a second on a loaded one).
        await run('ip', ['-batch', '-'], [
          `address add ${tunnel.deviceProxyIpAddress}/${prefixLength(tunnel.deviceProxyIpAddress)} dev ${name}`,
          `link set up dev ${name}`,
          `route replace ${serverAddress}/${prefixLength(serverAddress)} dev ${name}`,
          '',
        ].join('\n'));
        // After link up: a persistent keepalive set on a running interface is sent at once, so the
        // handshake (and the server learning the device's endpoint) happens now, not 25 s later.
        // The server's end is up by now: Canopy brings it up before answering the configure call.
        await wgSetconf(name, wgSetconfText(file));
        const proxy = { address: tunnel.deviceProxyIpAddress, port: tunnel.deviceProxyPort };
        if (tunnel.deviceTunnelPort === SHELL_TUNNEL_PORT && shell) {
          forwarders.set(tunnel.prn, await startShellService(proxy, log));
        } else if (portAllowed(portRanges, tunnel.deviceTunnelPort)) {
          forwarders.set(tunnel.prn, await startForwarder(proxy, tunnel.deviceTunnelPort));
        } else {
          // The plan refuses such tunnels; a file left from a run with wider settings lands here.
          log.warn('tunnel up without forwarding: device_tunnel_port is outside port_ranges (or the shell is disabled)', { tunnel_prn: tunnel.prn, device_tunnel_port: tunnel.deviceTunnelPort });
        }
      } catch (error) {
        await down(tunnel);
        throw error;
      }
      log.info('tunnel interface up', { tunnel_prn: tunnel.prn, interface: name, device_proxy: `${tunnel.deviceProxyIpAddress}:${tunnel.deviceProxyPort}`, device_tunnel_port: tunnel.deviceTunnelPort });
    },
    down,
    async prune(keep) {
      for (const name of await deviceInterfaces()) {
        if (keep.has(name)) continue;
        await removeInterface(name);
        log.info('tunnel interface removed: no tunnel file for it', { interface: name });
      }
    },
  };
}
