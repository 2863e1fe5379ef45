/** A tunnel as both APIs show it. The server's private key never appears here. */
import { organizationPrn, resourcePrn } from '../core/prn';
import { toRfc3339 } from '../core/time';
import { timestampsOf } from '../http/wire-fields';
import type { tunnels } from './schema';

export type TunnelRow = typeof tunnels.$inferSelect;

export function tunnelPrn(row: Pick<TunnelRow, 'organizationId' | 'id'>): string {
  return resourcePrn(row.organizationId, 'tunnel', row.id);
}

export function tunnelToWire(row: TunnelRow) {
  return {
    prn: resourcePrn(row.organizationId, 'tunnel', row.id),
    organization_prn: organizationPrn(row.organizationId),
    device_prn: resourcePrn(row.organizationId, 'device', row.deviceId),
    state: row.state,
    device_tunnel_port: row.deviceTunnelPort,
    cidr_block_allowlist: row.cidrBlockAllowlist,
    expires_at: toRfc3339(row.expiresAt),
    close_reason: row.closeReason,
    device_proxy_ip_address: row.deviceProxyIpAddress,
    device_proxy_port: row.deviceProxyPort,
    device_public_key: row.devicePublicKey,
    server_proxy_ip_address: row.serverProxyIpAddress,
    server_proxy_port: row.serverProxyPort,
    server_public_key: row.serverPublicKey,
    server_tunnel_ip_address: row.serverTunnelIpAddress,
    server_tunnel_port: row.serverTunnelPort,
    ...timestampsOf(row),
  };
}
