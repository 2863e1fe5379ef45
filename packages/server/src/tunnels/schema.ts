import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, insertedAt, organizationId, timestamptz, updatedAt } from '../db/columns';
import { devices } from '../devices/schema';

export const TUNNEL_STATES = ['requested', 'open', 'closed'] as const;
export type TunnelState = (typeof TUNNEL_STATES)[number];

/**
 * Remote-access tunnels. An admin requests one (device, port, allowlist, expiry); the device
 * configures it with what its side can offer, and the server fills in its own side: a fresh
 * WireGuard key pair and an allocated UDP port. The server-side columns stay null until then.
 */
export const tunnels = pgTable(
  'tunnels',
  {
    id: id(),
    organizationId: organizationId(),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    state: text('state').$type<TunnelState>().notNull(),
    deviceTunnelPort: integer('device_tunnel_port').notNull(),
    cidrBlockAllowlist: text('cidr_block_allowlist').array().notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    closeReason: text('close_reason'),
    // Set by the device's configure call.
    deviceProxyIpAddress: text('device_proxy_ip_address'),
    deviceProxyPort: integer('device_proxy_port'),
    devicePublicKey: text('device_public_key'),
    serverProxyIpAddress: text('server_proxy_ip_address'),
    serverProxyPort: integer('server_proxy_port'),
    serverPublicKey: text('server_public_key'),
    /** The server's X25519 private key, sealed by the platform's SecretBox; never on the wire but in GET .../wireguard. */
    serverPrivateKeySealed: text('server_private_key_sealed'),
    serverTunnelIpAddress: text('server_tunnel_ip_address'),
    serverTunnelPort: integer('server_tunnel_port'),
    insertedAt: insertedAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('tunnels_org_inserted').on(t.organizationId, t.insertedAt, t.id),
    index('tunnels_device_inserted').on(t.deviceId, t.insertedAt, t.id),
    // The allocator serialises itself with a lock; these make a slip impossible rather than unlikely.
    uniqueIndex('tunnels_open_server_tunnel_port').on(t.serverTunnelPort).where(sql`state = 'open'`),
    uniqueIndex('tunnels_open_server_proxy_ip').on(t.serverProxyIpAddress).where(sql`state = 'open'`),
    uniqueIndex('tunnels_open_device_proxy_ip').on(t.deviceProxyIpAddress).where(sql`state = 'open'`),
  ],
);
