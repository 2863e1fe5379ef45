/**
 * Whether this machine lets the server run tunnel interfaces: wireguard-go needs root (or
 * CAP_NET_ADMIN; we ask for root, the simple and documented case), the TUN device, and the
 * three tools on PATH. Checked once per process: none of it changes while the server runs.
 */
import fs from 'node:fs';
import path from 'node:path';

export type DataPlaneState =
  | { status: 'running'; reason: null }
  | { status: 'disabled'; reason: 'CANOPY_TUNNEL_DATA_PLANE=off' }
  | { status: 'unavailable'; reason: string };

const TOOLS = ['wireguard-go', 'wg', 'ip'];

function onPath(tool: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, tool)));
}

let checked: DataPlaneState | null = null;

/** What the data plane can do on this machine, regardless of settings. */
export function dataPlaneSupport(): DataPlaneState {
  if (checked) return checked;
  if (process.getuid?.() !== 0) checked = { status: 'unavailable', reason: 'not_root' };
  else if (!fs.existsSync('/dev/net/tun')) checked = { status: 'unavailable', reason: 'no_tun_device' };
  else {
    const missing = TOOLS.filter((tool) => !onPath(tool));
    checked = missing.length > 0 ? { status: 'unavailable', reason: `missing_tools:${missing.join(',')}` } : { status: 'running', reason: null };
  }
  return checked;
}

export function dataPlaneState(enabled: boolean): DataPlaneState {
  return enabled ? dataPlaneSupport() : { status: 'disabled', reason: 'CANOPY_TUNNEL_DATA_PLANE=off' };
}
