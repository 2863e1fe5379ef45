/** Tunnel state changes as `tunnel` events, written in the transaction that makes the change. */
import type { Executor } from '../db/connection';
import { recordEvent } from '../events/service';
import { tunnelPrn, tunnelToWire, type TunnelRow } from './wire';

export type TunnelEventSubtype = 'requested' | 'opened' | 'closed' | 'expired';

/** `actorPrn` is the API key or user, the device, or null when the platform itself acted (expiry). */
export async function recordTunnelEvent(tx: Executor, subtype: TunnelEventSubtype, row: TunnelRow, actorPrn: string | null): Promise<void> {
  const wire = tunnelToWire(row);
  await recordEvent(tx, {
    organizationId: row.organizationId,
    type: 'tunnel',
    subtype,
    actorPrn,
    resourcePrn: tunnelPrn(row),
    data: {
      tunnel_prn: wire.prn,
      device_prn: wire.device_prn,
      state: wire.state,
      expires_at: wire.expires_at,
      close_reason: wire.close_reason,
      server_tunnel_port: wire.server_tunnel_port,
    },
  });
}
