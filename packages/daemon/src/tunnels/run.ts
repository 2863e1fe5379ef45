/**
 * The tunnel agent beside the update loop, for the daemon's `run` (main.ts): started with the
 * daemon's DeviceClient, stopped when `signal` aborts. With `remote_access_tunnels.enabled: false`
 * it still starts once, so tunnels a previous run left up are taken down, and then does nothing.
 */
import type { DeviceClient } from '@canopy/sdk/device';
import type { Logger } from '../log.ts';
import { checkTunnelConfig, createTunnelAgent, type TunnelAgent, type TunnelConfig } from './agent.ts';
import { wireguardUnsupportedReason } from './commands.ts';
import { loggingTunnelInterface, type TunnelInterface } from './interface.ts';
import { deviceApiRequestOverClient } from './request.ts';
import { wireguardTunnelInterface } from './wireguard-interface.ts';

/** WireGuard interfaces where the device can run them; otherwise says why once and only logs. */
export function defaultTunnelInterface(config: TunnelConfig, log: Logger): TunnelInterface {
  // Like the server's CANOPY_TUNNEL_DATA_PLANE=off: the control plane without interfaces, for a
  // daemon run as root on a machine whose network it must not touch (the process tests).
  const unsupported = process.env.CANOPY_DAEMON_TUNNEL_DATA_PLANE === 'off' ? 'CANOPY_DAEMON_TUNNEL_DATA_PLANE=off' : wireguardUnsupportedReason();
  if (unsupported === null) return wireguardTunnelInterface({ log, portRanges: checkTunnelConfig(config), shell: config.remote_access_tunnels.shell ?? true });
  if (config.remote_access_tunnels.enabled) log.warn('tunnels will not carry traffic on this device (needs root, /dev/net/tun, wireguard-go, wg and ip)', { reason: unsupported });
  return loggingTunnelInterface(log);
}

export async function runTunnels(options: {
  config: TunnelConfig;
  client: Pick<DeviceClient, 'listTunnels' | 'configureTunnel' | 'closeTunnel'>;
  log: Logger;
  signal: AbortSignal;
  /** Default: defaultTunnelInterface. */
  iface?: TunnelInterface;
}): Promise<TunnelAgent> {
  const { config, client, signal } = options;
  const log = options.log.child({ part: 'tunnels' });
  const iface = options.iface ?? defaultTunnelInterface(config, log);
  const agent = createTunnelAgent({ config, request: deviceApiRequestOverClient(client), log, iface });
  await agent.start();
  if (!config.remote_access_tunnels.enabled) await agent.stop();
  else signal.addEventListener('abort', () => void agent.stop(), { once: true });
  return agent;
}
