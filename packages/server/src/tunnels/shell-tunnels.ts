/**
 * Tunnels that carry a web console shell (web-console/shell-relay.ts): requested by the server
 * itself when a shell URL is used, with device_tunnel_port 0 (SHELL_TUNNEL_PORT), which the
 * daemon answers with its own PTY service on the tunnel address instead of forwarding to a local
 * port, and which the data plane gives no operator proxy (the relay is its only client). They
 * are ordinary tunnels otherwise: listed, closed and expired like the others, with their events.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/connection';
import { recordTunnelEvent } from './events';
import { byId, closeTunnel, expiresIn, lockTunnel, scheduleExpiry } from './lifecycle';
import { tunnels } from './schema';
import type { TunnelRow } from './wire';

export const SHELL_TUNNEL_PORT = 0;

export const isShellTunnel = (row: Pick<TunnelRow, 'deviceTunnelPort'>) => row.deviceTunnelPort === SHELL_TUNNEL_PORT;

/** A requested shell tunnel to the device, living `ttlSeconds` unless closed first. */
export async function requestShellTunnel(db: Database, shell: { organizationId: string; deviceId: string; actorPrn: string | null; ttlSeconds: number }): Promise<TunnelRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(tunnels)
      .values({
        id: randomUUID(),
        organizationId: shell.organizationId,
        deviceId: shell.deviceId,
        state: 'requested',
        deviceTunnelPort: SHELL_TUNNEL_PORT,
        cidrBlockAllowlist: [],
        expiresAt: expiresIn(shell.ttlSeconds),
      })
      .returning();
    await recordTunnelEvent(tx, 'requested', row, shell.actorPrn);
    await scheduleExpiry(tx, row);
    return row;
  });
}

/** The tunnel as it is now, with whether expires_at has passed by the database's clock. */
export async function shellTunnelNow(db: Executor, row: TunnelRow): Promise<{ row: TunnelRow; expired: boolean } | null> {
  const [found] = await db
    .select({ row: tunnels, expired: sql<boolean>`${tunnels.expiresAt} <= now()` })
    .from(tunnels)
    .where(byId(row.id, row.organizationId))
    .limit(1);
  return found ?? null;
}

/** Closes the shell's tunnel (a closed one stays as it is). */
export async function closeShellTunnel(db: Database, row: TunnelRow, reason: string, actorPrn: string | null): Promise<void> {
  await db.transaction(async (tx) => {
    const locked = await lockTunnel(tx, byId(row.id, row.organizationId));
    if (locked && locked.row.state !== 'closed') await closeTunnel(tx, locked.row, { subtype: 'closed', reason, actorPrn });
  });
}
