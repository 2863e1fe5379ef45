/**
 * The device end's wg-quick configuration: the file the device API documents for
 * `POST /tunnels/configure` (site/docs/canopy-core/tools/device-api.mdx; IPv6 uses /128 and
 * [addr]:port), after comment lines (wg-quick ignores them) that let the daemon recognise its own
 * files after a restart: `# canopy <key> = <value>`, one each for tunnel_prn, expires_at
 * (RFC 3339), device_tunnel_port, device_proxy_port and device_proxy_ip_address.
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
