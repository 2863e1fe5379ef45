/** `remote_access_tunnels.port_ranges` entries: `"22"` or `"8080-8090"`, ports 1 to 65535. */
export interface PortRange {
  low: number;
  high: number;
}

export function parsePortRange(text: string): PortRange | null {
  const match = /^\s*(\d{1,5})\s*(?:-\s*(\d{1,5})\s*)?$/.exec(text);
  if (!match) return null;
  const low = Number(match[1]);
  const high = match[2] === undefined ? low : Number(match[2]);
  if (low < 1 || high > 65535 || low > high) return null;
  return { low, high };
}

export const portAllowed = (ranges: readonly PortRange[], port: number) => ranges.some((range) => port >= range.low && port <= range.high);

/**
 * The device_tunnel_port of a web console shell's tunnel: no local port (0 is never one), but
 * the daemon's own PTY service (shell-service.ts), allowed by `remote_access_tunnels.shell`
 * rather than by port_ranges.
 */
export const SHELL_TUNNEL_PORT = 0;
