/**
 * The tunnel state machine's writes, shared by the admin API, the device API and the expiry job:
 * requested -> open (configure), requested|open -> closed (close, expiry). Nothing moves a tunnel
 * back. Each write runs on a row locked with FOR UPDATE, so two callers racing on one tunnel
 * (an admin close and the device's configure, a ttl extension and the expiry job) take turns and
 * the second sees what the first did.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/connection';
import { conflict } from '../http/errors';
import { toRfc3339 } from '../core/time';
import { enqueueJob } from '../workers/queue';
import { recordTunnelEvent, type TunnelEventSubtype } from './events';
import { tunnels } from './schema';
import type { TunnelRow } from './wire';

export const TUNNEL_EXPIRY_JOB = 'tunnel.expire';

export interface LockedTunnel {
  row: TunnelRow;
  /** expires_at has passed by the database's clock (the expiry job may not have run yet). */
  expired: boolean;
}

/** The tunnel matching `where`, locked for this transaction; null when there is none. */
export async function lockTunnel(tx: Executor, where: SQL | undefined): Promise<LockedTunnel | null> {
  const [found] = await tx
    .select({ row: tunnels, expired: sql<boolean>`${tunnels.expiresAt} <= now()` })
    .from(tunnels)
    .where(where)
    .limit(1)
    .for('update');
  return found ?? null;
}

export function byId(id: string, organizationId: string): SQL | undefined {
  return and(eq(tunnels.id, id), eq(tunnels.organizationId, organizationId));
}

/** 409 unless the tunnel may still change: not closed and not past its expiry. */
export function requireLive(locked: LockedTunnel, to: string): void {
  if (locked.row.state === 'closed') throw conflict('invalid_state_transition', { from: 'closed', to });
  if (locked.expired) throw conflict('tunnel_expired', { expires_at: toRfc3339(locked.row.expiresAt) });
}

/**
 * The durable expiry: one job per tunnel, keyed, so moving expires_at moves the job. It runs at
 * expires_at (to the millisecond, which is why expires_at is kept at millisecond precision).
 */
export async function scheduleExpiry(tx: Executor, row: TunnelRow): Promise<void> {
  await enqueueJob(tx, {
    kind: TUNNEL_EXPIRY_JOB,
    key: `tunnel-expiry:${row.id}`,
    payload: { tunnel_id: row.id, organization_id: row.organizationId },
    runAt: new Date(toRfc3339(row.expiresAt)),
  });
}

/** expires_at = now + ttl seconds, by the database's clock, and the expiry job moved with it. */
export function expiresIn(ttlSeconds: number): SQL {
  return sql`date_trunc('milliseconds', now()) + make_interval(secs => ${ttlSeconds})`;
}

export async function extendTunnel(tx: Executor, row: TunnelRow, ttlSeconds: number): Promise<TunnelRow> {
  const [updated] = await tx
    .update(tunnels)
    .set({ expiresAt: expiresIn(ttlSeconds), updatedAt: sql`now()` })
    .where(eq(tunnels.id, row.id))
    .returning();
  await scheduleExpiry(tx, updated);
  return updated;
}

export async function closeTunnel(
  tx: Executor,
  row: TunnelRow,
  close: { subtype: Extract<TunnelEventSubtype, 'closed' | 'expired'>; reason: string | null; actorPrn: string | null },
): Promise<TunnelRow> {
  const [updated] = await tx
    .update(tunnels)
    .set({ state: 'closed', closeReason: close.reason, updatedAt: sql`now()` })
    .where(eq(tunnels.id, row.id))
    .returning();
  await recordTunnelEvent(tx, close.subtype, updated, close.actorPrn);
  return updated;
}
