/**
 * The one place a tunnel touches the network: bringing its WireGuard interface up from the
 * configuration file the daemon wrote, forwarding `device_proxy_port` inside the tunnel to
 * `device_tunnel_port` on localhost, and tearing both down. The implementation that carries
 * traffic is wireguard-interface.ts (wireguard-go, wg, ip; needs root and /dev/net/tun);
 * `runTunnels` uses it where the device supports it. `loggingTunnelInterface` only records the
 * decisions: it is `createTunnelAgent`'s default (tests of the control plane, which must not
 * create interfaces on the test machine) and the fallback on a device without TUN.
 */
import type { Logger } from '../log.ts';

export interface LocalTunnel {
  prn: string;
  /** The WireGuard interface name, at most 15 characters (Linux's limit); also the file's base name. */
  interfaceName: string;
  /** The wg-quick configuration file (mode 0600; it holds the private key). */
  configPath: string;
  expiresAt: Date;
  deviceTunnelPort: number;
  deviceProxyPort: number;
  /** The device's address inside the tunnel (the interface's Address). */
  deviceProxyIpAddress: string;
}

export interface TunnelInterface {
  /** Brings the tunnel up. Called again after a daemon restart for a tunnel still open: must be idempotent. */
  up(tunnel: LocalTunnel): Promise<void>;
  /** Takes it down. Called for tunnels that may never have come up: must be idempotent. */
  down(tunnel: LocalTunnel): Promise<void>;
  /** After a restart: removes interfaces of ours whose names are not in `keep` (tunnels without a file). */
  prune?(keep: ReadonlySet<string>): Promise<void>;
}

export function loggingTunnelInterface(log: Logger): TunnelInterface {
  return {
    async up(tunnel) {
      log.info('tunnel interface up (not carrying traffic: logging interface)', { tunnel_prn: tunnel.prn, interface: tunnel.interfaceName });
    },
    async down(tunnel) {
      log.info('tunnel interface down', { tunnel_prn: tunnel.prn, interface: tunnel.interfaceName });
    },
  };
}
