/**
 * wg-quick configuration files for the two ends of an open tunnel.
 *
 * Server end (`GET /tunnels/{prn}/wireguard`): the server's private key, tunnel address and
 * allocated UDP port; its only peer is the device, which may send from its tunnel address alone.
 * Device end: the file in site/docs/canopy-core/tools/device-api.mdx (IPv6: /128 and
 * [addr]:port), built by the device from the configure answer; its private key never leaves it.
 * The device dials out (it is usually behind NAT) and the keepalive holds the mapping open. In
 * the tunnel the server reaches the device's proxy at device_proxy_ip_address:device_proxy_port,
 * which forwards to the device's local device_tunnel_port.
 */
import { isIP } from 'node:net';
import { hostRoute } from './cidr';

/** The device behind NAT sends a keepalive this often (seconds), the value wg(8) suggests. */
export const PERSISTENT_KEEPALIVE_SECONDS = 25;

function section(name: string, entries: [string, string | number][]): string {
  return [`[${name}]`, ...entries.map(([key, value]) => `${key} = ${value}`)].join('\n');
}

function endpoint(address: string, port: number): string {
  return isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/** The fields of an open tunnel's wire form (`tunnelToWire`) that the two ends need. */
export interface OpenTunnelEnds {
  prn: string;
  server_proxy_ip_address: string | null;
  device_proxy_ip_address: string | null;
  device_public_key: string | null;
  server_public_key: string | null;
  server_tunnel_ip_address: string | null;
  server_tunnel_port: number | null;
}

function opened(t: OpenTunnelEnds) {
  const { server_proxy_ip_address, device_proxy_ip_address, device_public_key, server_public_key, server_tunnel_ip_address, server_tunnel_port } = t;
  if (!server_proxy_ip_address || !device_proxy_ip_address || !device_public_key || !server_public_key || !server_tunnel_ip_address || server_tunnel_port === null) {
    throw new Error(`tunnel ${t.prn} has not been configured`);
  }
  return {
    serverProxyIpAddress: server_proxy_ip_address,
    deviceProxyIpAddress: device_proxy_ip_address,
    devicePublicKey: device_public_key,
    serverPublicKey: server_public_key,
    serverTunnelIpAddress: server_tunnel_ip_address,
    serverTunnelPort: server_tunnel_port,
  };
}

export function serverWireguardConfig(tunnel: OpenTunnelEnds, serverPrivateKey: string): string {
  const t = opened(tunnel);
  return `${[
    section('Interface', [
      ['PrivateKey', serverPrivateKey],
      ['Address', hostRoute(t.serverProxyIpAddress)],
      ['ListenPort', t.serverTunnelPort],
    ]),
    section('Peer', [
      ['PublicKey', t.devicePublicKey],
      ['AllowedIPs', hostRoute(t.deviceProxyIpAddress)],
    ]),
  ].join('\n\n')}\n`;
}

/** The device's end, as documented above, from the configure answer; the daemon and tests use it. */
export function deviceWireguardConfig(tunnel: OpenTunnelEnds, devicePrivateKey: string): string {
  const t = opened(tunnel);
  return `${[
    section('Interface', [
      ['PrivateKey', devicePrivateKey],
      ['Address', hostRoute(t.deviceProxyIpAddress)],
    ]),
    section('Peer', [
      ['PublicKey', t.serverPublicKey],
      ['Endpoint', endpoint(t.serverTunnelIpAddress, t.serverTunnelPort)],
      ['AllowedIPs', hostRoute(t.serverProxyIpAddress)],
      ['PersistentKeepalive', PERSISTENT_KEEPALIVE_SECONDS],
    ]),
  ].join('\n\n')}\n`;
}
