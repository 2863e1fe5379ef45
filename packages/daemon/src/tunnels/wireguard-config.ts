/**
 * The device end's wg-quick configuration, as the device API documents it for
 * `POST /tunnels/configure`, plus comment lines (wg-quick ignores them) that let the daemon
 * recognise its own files after a restart:
 *
 *   # canopy tunnel_prn = <prn>
 *   # canopy expires_at = <RFC 3339>
 *   # canopy device_tunnel_port = <port>, device_proxy_port, device_proxy_ip_address (one line each)
 *   [Interface]
 *   PrivateKey = <device private key>
 *   Address = <device_proxy_ip_address>/32          (/128 for IPv6)
 *
 *   [Peer]
 *   PublicKey = <server_public_key>
 *   Endpoint = <server_tunnel_ip_address>:<server_tunnel_port>   ([addr]:port for IPv6)
 *   AllowedIPs = <server_proxy_ip_address>/32
 *   PersistentKeepalive = 25
 *
 * The device is usually behind NAT, so it dials out and the keepalive holds the mapping open.
 */
import { isIP } from 'node:net';
import type { OpenTunnel } from './wire.ts';

export const PERSISTENT_KEEPALIVE_SECONDS = 25;

const hostRoute = (address: string) => `${address}/${isIP(address) === 6 ? 128 : 32}`;
const endpoint = (address: string, port: number) => (isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`);

export function deviceWireguardConfig(tunnel: OpenTunnel, privateKey: string): string {
  return [
    `# canopy tunnel_prn = ${tunnel.prn}`,
    `# canopy expires_at = ${tunnel.expiresAt.toISOString()}`,
    `# canopy device_tunnel_port = ${tunnel.deviceTunnelPort}`,
    `# canopy device_proxy_port = ${tunnel.deviceProxyPort}`,
    `# canopy device_proxy_ip_address = ${tunnel.deviceProxyIpAddress}`,
    '[Interface]',
    `PrivateKey = ${privateKey}`,
    `Address = ${hostRoute(tunnel.deviceProxyIpAddress)}`,
    '',
    '[Peer]',
    `PublicKey = ${tunnel.serverPublicKey}`,
    `Endpoint = ${endpoint(tunnel.serverTunnelIpAddress, tunnel.serverTunnelPort)}`,
    `AllowedIPs = ${hostRoute(tunnel.serverProxyIpAddress)}`,
    `PersistentKeepalive = ${PERSISTENT_KEEPALIVE_SECONDS}`,
    '',
  ].join('\n');
}

/** The header comments of a file this module wrote; null for any other file. */
export function readConfigHeader(text: string): { prn: string; expiresAt: Date; deviceTunnelPort: number; deviceProxyPort: number; deviceProxyIpAddress: string } | null {
  const field = (name: string) => new RegExp(`^# canopy ${name} = (.+)$`, 'm').exec(text)?.[1]?.trim();
  const prn = field('tunnel_prn');
  const expiresAt = new Date(field('expires_at') ?? '');
  const deviceTunnelPort = Number(field('device_tunnel_port'));
  const deviceProxyPort = Number(field('device_proxy_port'));
  const deviceProxyIpAddress = field('device_proxy_ip_address');
  if (!prn || !deviceProxyIpAddress || Number.isNaN(expiresAt.getTime()) || !Number.isInteger(deviceTunnelPort) || !Number.isInteger(deviceProxyPort)) return null;
  return { prn, expiresAt, deviceTunnelPort, deviceProxyPort, deviceProxyIpAddress };
}
