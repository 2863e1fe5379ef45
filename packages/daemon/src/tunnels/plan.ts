/**
 * What one tunnel poll should do, as a pure function of what the server lists, what the device
 * has set up, the clock and the configuration (agent.ts carries it out). Where the docs are silent:
 * - a port outside `port_ranges` is closed at once (`port_not_allowed`) so the operator sees why;
 * - an open tunnel the device has no key for (it stopped before saving one): `device_key_lost`;
 * - expiry is by the device's clock against `expires_at`, refreshed from every listing; an expired
 *   tunnel is not PATCHed: the server closes it at the same moment;
 * - a failed poll changes nothing until expiry; `enabled: false`: no polling, all tunnels down;
 * - a shell tunnel (device_tunnel_port 0) is configured when `shell` allows it, whatever
 *   port_ranges says, and closed at once (`shell_disabled`) otherwise.
 */
import type { LocalTunnel } from './interface.ts';
import { portAllowed, SHELL_TUNNEL_PORT, type PortRange } from './port-ranges.ts';
import type { WireTunnel } from './wire.ts';

export type TunnelAction =
  | { kind: 'configure'; tunnel: WireTunnel }
  | { kind: 'refuse'; tunnel: WireTunnel; reason: 'port_not_allowed' | 'device_key_lost' | 'shell_disabled' }
  | { kind: 'take_down'; tunnel: LocalTunnel; reason: 'expired' | 'closed' | 'disabled' }
  | { kind: 'extend'; tunnel: LocalTunnel; expiresAt: Date };

export interface PlanInput {
  enabled: boolean;
  portRanges: readonly PortRange[];
  /** `remote_access_tunnels.shell`: whether shell tunnels (device_tunnel_port 0) are served. */
  shell?: boolean;
  /** The server's requested and open tunnels; null when the poll failed. */
  listed: readonly WireTunnel[] | null;
  local: readonly LocalTunnel[];
  now: Date;
}

export function planTunnels({ enabled, portRanges, shell = true, listed, local, now }: PlanInput): TunnelAction[] {
  const actions: TunnelAction[] = [];
  if (!enabled) return local.map((tunnel) => ({ kind: 'take_down', tunnel, reason: 'disabled' }));
  const listedByPrn = new Map((listed ?? []).map((tunnel) => [tunnel.prn, tunnel]));
  const localPrns = new Set(local.map((tunnel) => tunnel.prn));

  for (const tunnel of local) {
    const seen = listedByPrn.get(tunnel.prn);
    const seenExpiry = seen && seen.state === 'open' ? new Date(seen.expires_at) : null;
    const expiresAt = seenExpiry && !Number.isNaN(seenExpiry.getTime()) ? seenExpiry : tunnel.expiresAt;
    if (expiresAt.getTime() <= now.getTime()) actions.push({ kind: 'take_down', tunnel, reason: 'expired' });
    else if (listed !== null && !seenExpiry) actions.push({ kind: 'take_down', tunnel, reason: 'closed' });
    else if (expiresAt.getTime() !== tunnel.expiresAt.getTime()) actions.push({ kind: 'extend', tunnel, expiresAt });
  }

  for (const tunnel of listed ?? []) {
    if (localPrns.has(tunnel.prn)) continue;
    if (new Date(tunnel.expires_at).getTime() <= now.getTime()) continue;
    if (tunnel.state === 'requested') {
      if (tunnel.device_tunnel_port === SHELL_TUNNEL_PORT) actions.push(shell ? { kind: 'configure', tunnel } : { kind: 'refuse', tunnel, reason: 'shell_disabled' });
      else if (portAllowed(portRanges, tunnel.device_tunnel_port)) actions.push({ kind: 'configure', tunnel });
      else actions.push({ kind: 'refuse', tunnel, reason: 'port_not_allowed' });
    } else if (tunnel.state === 'open') {
      actions.push({ kind: 'refuse', tunnel, reason: 'device_key_lost' });
    }
  }
  return actions;
}
