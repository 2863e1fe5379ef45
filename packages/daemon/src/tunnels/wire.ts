/**
 * A tunnel as the device API answers it (`GET /tunnels`, `POST /tunnels/configure`); the fields
 * this module reads. The server's shape: packages/server/src/tunnels/api-schema.ts.
 */
export interface WireTunnel {
  prn: string;
  state: 'requested' | 'open' | 'closed';
  device_tunnel_port: number;
  expires_at: string;
  device_proxy_ip_address: string | null;
  device_proxy_port: number | null;
  device_public_key: string | null;
  server_proxy_ip_address: string | null;
  server_proxy_port: number | null;
  server_public_key: string | null;
  server_tunnel_ip_address: string | null;
  server_tunnel_port: number | null;
}

/** An open tunnel's server side, checked present (what the WireGuard configuration needs). */
export interface OpenTunnel {
  prn: string;
  expiresAt: Date;
  deviceTunnelPort: number;
  deviceProxyIpAddress: string;
  deviceProxyPort: number;
  serverProxyIpAddress: string;
  serverPublicKey: string;
  serverTunnelIpAddress: string;
  serverTunnelPort: number;
}

/** The open tunnel in an answer, or null for anything else (not open, fields missing, not an object). */
export function openTunnelOf(tunnel: WireTunnel | null | undefined): OpenTunnel | null {
  const t = tunnel;
  if (!t || typeof t !== 'object' || t.state !== 'open' || !t.device_proxy_ip_address || !t.device_proxy_port || !t.server_proxy_ip_address || !t.server_public_key || !t.server_tunnel_ip_address || !t.server_tunnel_port) return null;
  const expiresAt = new Date(t.expires_at);
  if (Number.isNaN(expiresAt.getTime())) return null;
  return {
    prn: t.prn,
    expiresAt,
    deviceTunnelPort: t.device_tunnel_port,
    deviceProxyIpAddress: t.device_proxy_ip_address,
    deviceProxyPort: t.device_proxy_port,
    serverProxyIpAddress: t.server_proxy_ip_address,
    serverPublicKey: t.server_public_key,
    serverTunnelIpAddress: t.server_tunnel_ip_address,
    serverTunnelPort: t.server_tunnel_port,
  };
}
