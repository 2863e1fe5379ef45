/**
 * The network tools the daemon's tunnels drive (wireguard-go, wg, ip), run without a shell
 * (shared with the server's data plane), and whether this device can run them at all.
 */
import fs from 'node:fs';
import path from 'node:path';

export { run, wgSetconf } from '@canopy/sdk/network-tools';

const onPath = (tool: string) => (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, tool)));

/** Why this device cannot run tunnel interfaces, or null when it can (root, /dev/net/tun, the tools). */
export function wireguardUnsupportedReason(): string | null {
  if (process.getuid?.() !== 0) return 'not_root';
  if (!fs.existsSync('/dev/net/tun')) return 'no_tun_device';
  const missing = ['wireguard-go', 'wg', 'ip'].filter((tool) => !onPath(tool));
  return missing.length > 0 ? `missing_tools:${missing.join(',')}` : null;
}
