/**
 * Tunnels as operators see them through the admin API: request one for a device, list and read
 * them, close one or extend its life, and fetch the server side's WireGuard configuration.
 */
import { randomUUID } from 'node:crypto';
import type { Database, Executor } from '../db/connection';
import { getDevice } from '../devices/service';
import type { Actor } from '../http/actor';
import { conflict, invalidField, notFound, validationError, type FieldProblem } from '../http/errors';
import { findOwnedRow, listOwnedRows } from '../read-path/owned-rows';
import type { ListQuery } from '../http/pagination';
import { resourceIdFromPrn } from '../core/prn';
import type { SearchFields } from '../search/search';
import type { Platform } from '../platform';
import { formatCidr } from './cidr';
import { parseCidrList } from './configure-input';
import { recordTunnelEvent } from './events';
import { byId, closeTunnel, expiresIn, extendTunnel, lockTunnel, requireLive, scheduleExpiry } from './lifecycle';
import { tunnels } from './schema';
import { serverWireguardConfig } from './wireguard-config';
import { tunnelToWire, type TunnelRow } from './wire';

export const DEFAULT_TUNNEL_TTL = 3600;

const DATE_OPERATORS = [':', '<', '<=', '>', '>='] as const;

/** Per request, because device prns resolve only within the caller's organization. */
function tunnelSearch(organizationId: string): SearchFields {
  return {
    state: { column: tunnels.state, type: 'string', operators: [':'] },
    device_prn: { column: tunnels.deviceId, type: 'prn', operators: [':'], resolve: (prn) => resourceIdFromPrn(prn, 'device', organizationId) },
    inserted_at: { column: tunnels.insertedAt, type: 'datetime', operators: DATE_OPERATORS },
    expires_at: { column: tunnels.expiresAt, type: 'datetime', operators: DATE_OPERATORS },
  };
}

export interface NewTunnel {
  device_prn: string;
  device_tunnel_port: number;
  cidr_block_allowlist?: string[] | null;
  ttl?: number;
}

export async function createTunnel(db: Database, actor: Actor, input: NewTunnel): Promise<TunnelRow> {
  const problems: FieldProblem[] = [];
  const allowlist = parseCidrList('cidr_block_allowlist', input.cidr_block_allowlist ?? [], problems);
  if (problems.length > 0) throw validationError(problems);
  return db.transaction(async (tx) => {
    const device = await getDevice(tx, actor, input.device_prn, 'device_prn');
    const [row] = await tx
      .insert(tunnels)
      .values({
        id: randomUUID(),
        organizationId: actor.organizationId,
        deviceId: device.id,
        state: 'requested',
        deviceTunnelPort: input.device_tunnel_port,
        cidrBlockAllowlist: allowlist.map(formatCidr),
        expiresAt: expiresIn(input.ttl ?? DEFAULT_TUNNEL_TTL),
      })
      .returning();
    await recordTunnelEvent(tx, 'requested', row, actor.prn);
    await scheduleExpiry(tx, row);
    return row;
  });
}

export async function getTunnel(db: Executor, actor: Actor, prn: string): Promise<TunnelRow> {
  const row = await findOwnedRow(db, tunnels, 'tunnel', actor.organizationId, prn);
  if (!row) throw notFound('tunnel', prn);
  return row;
}

export function listTunnels(db: Executor, actor: Actor, query: ListQuery) {
  return listOwnedRows(db, tunnels, actor.organizationId, query, tunnelSearch(actor.organizationId));
}

export interface TunnelChanges {
  state?: string;
  ttl?: number;
  close_reason?: string | null;
}

/**
 * `{state: "closed"}` closes (closing a closed tunnel changes nothing); `{ttl}` moves expires_at
 * to now + ttl for a tunnel that is still live. Any other state is a 422: states only go forward,
 * and only the device opens a tunnel.
 */
export async function updateTunnel(db: Database, actor: Actor, prn: string, changes: TunnelChanges): Promise<TunnelRow> {
  if (changes.state !== undefined && changes.state !== 'closed') throw invalidField('state', 'invalid_transition', { allowed: ['closed'] });
  return db.transaction(async (tx) => {
    const id = resourceIdFromPrn(prn, 'tunnel', actor.organizationId);
    const locked = id ? await lockTunnel(tx, byId(id, actor.organizationId)) : null;
    if (!locked) throw notFound('tunnel', prn);
    if (changes.state === 'closed') {
      if (locked.row.state === 'closed') return locked.row;
      return closeTunnel(tx, locked.row, { subtype: 'closed', reason: changes.close_reason ?? 'closed_by_user', actorPrn: actor.prn });
    }
    if (changes.ttl !== undefined) {
      requireLive(locked, locked.row.state);
      return extendTunnel(tx, locked.row, changes.ttl);
    }
    return locked.row;
  });
}

/** The wg-quick file for the server's end of an open tunnel (it holds the server's private key). */
export async function tunnelServerConfig(platform: Platform, actor: Actor, prn: string): Promise<string> {
  const row = await getTunnel(platform.db, actor, prn);
  if (row.state !== 'open' || !row.serverPrivateKeySealed) throw conflict('tunnel_not_open', { state: row.state });
  return serverWireguardConfig(tunnelToWire(row), platform.secrets.open(row.serverPrivateKeySealed));
}
