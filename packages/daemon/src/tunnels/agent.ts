/**
 * The device side of the tunnels control plane (remote-access-tunnels.md): poll `GET /tunnels`,
 * configure each requested tunnel with a fresh X25519 key pair, the free blocks of
 * `cidr_blocks` and the configured `port_ranges`, write its WireGuard file, bring it up through
 * the interface module, and take it down when it expires or the server stops listing it.
 * What to do on each poll is decided by plan.ts; this file carries it out and keeps the list
 * of tunnels that are set up (mirrored on disk by store.ts).
 *
 * Configuration read: `remote_access_tunnels.enabled`, `.port_ranges`, `.cidr_blocks`, `.shell`,
 * `tunnel_poll_interval`, `state_dir` (the files go to `<state_dir>/tunnels`).
 */
import net from 'node:net';
import path from 'node:path';
import type { DaemonConfig } from '../config/types.ts';
import type { Logger } from '../log.ts';
import { parseCidr, type Cidr } from './cidr.ts';
import { loggingTunnelInterface, type LocalTunnel, type TunnelInterface } from './interface.ts';
import { deviceNetworks, freeBlocks } from './local-networks.ts';
import { planTunnels, type TunnelAction } from './plan.ts';
import { parsePortRange, type PortRange } from './port-ranges.ts';
import type { DeviceApiRequest } from './request.ts';
import { loadTunnelConfigs, removeTunnelConfig, writeTunnelConfig } from './store.ts';
import { openTunnelOf, type WireTunnel } from './wire.ts';
import { generateWireguardKeyPair } from './wireguard-keys.ts';

export type TunnelConfig = Pick<DaemonConfig, 'remote_access_tunnels' | 'tunnel_poll_interval' | 'state_dir'>;

export interface TunnelAgentOptions {
  config: TunnelConfig;
  /** The device API call (request.ts); the core passes its SDK client's equivalent. */
  request: DeviceApiRequest;
  log: Logger;
  /** Where the WireGuard files go; default `<state_dir>/tunnels`. */
  dir?: string;
  /** Brings interfaces up and down; default: logs only (interface.ts). */
  iface?: TunnelInterface;
  now?: () => Date;
  /** The device's own networks; default: its interfaces' (local-networks.ts). */
  networks?: (ownAddresses: ReadonlySet<string>) => Cidr[];
  /** A free local TCP port for device_proxy_port; default: one the kernel picks. */
  freePort?: () => Promise<number>;
}

export interface PollResult {
  /** False when `GET /tunnels` failed (transport error or non-200). */
  listed: boolean;
  actions: TunnelAction['kind'][];
}

export interface TunnelAgent {
  /** Loads the tunnels left on disk, brings them up again, then polls every tunnel_poll_interval. */
  start(): Promise<void>;
  /** Stops polling (tunnels stay up; they are on disk and expire by themselves). */
  stop(): Promise<void>;
  /** One poll: list, then configure, refuse, extend and take down as plan.ts decides. */
  pollOnce(): Promise<PollResult>;
  /** `canopy-daemon tunnels close <prn>`: closes it through the device API and takes it down. */
  close(prn: string, reason?: string): Promise<void>;
  /** The tunnels set up now. */
  tunnels(): LocalTunnel[];
}

/** Pages through `GET /tunnels` (the server lists only requested and open, unexpired ones). */
async function listTunnels(request: DeviceApiRequest): Promise<WireTunnel[] | null> {
  const all: WireTunnel[] = [];
  let page: string | null = null;
  for (let i = 0; i < 100; i++) {
    const query: string = page ? `?limit=100&page=${encodeURIComponent(page)}` : '?limit=100';
    const res = await request('GET', `/tunnels${query}`);
    if (res.status !== 200 || !Array.isArray(res.body?.tunnels)) return null;
    all.push(...res.body.tunnels);
    page = res.body.next_page ?? null;
    if (!page) return all;
  }
  return all;
}

function kernelPickedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function errorSummary(body: unknown): string {
  const error = (body as { errors?: Array<{ code?: string }> } | null)?.errors?.[0];
  return error?.code ?? 'unexpected_answer';
}

export function checkTunnelConfig(config: TunnelConfig): PortRange[] {
  const ranges = config.remote_access_tunnels.port_ranges.map((text, index) => {
    const range = parsePortRange(text);
    if (!range) throw new Error(`remote_access_tunnels.port_ranges[${index}]: invalid port range ${JSON.stringify(text)}`);
    return range;
  });
  config.remote_access_tunnels.cidr_blocks.forEach((text, index) => {
    if (!parseCidr(text)) throw new Error(`remote_access_tunnels.cidr_blocks[${index}]: invalid CIDR ${JSON.stringify(text)}`);
  });
  return ranges;
}

export function createTunnelAgent(options: TunnelAgentOptions): TunnelAgent {
  const { config, request, log } = options;
  const portRanges = checkTunnelConfig(config);
  const dir = options.dir ?? path.join(config.state_dir, 'tunnels');
  const iface = options.iface ?? loggingTunnelInterface(log);
  const now = options.now ?? (() => new Date());
  const networks = options.networks ?? deviceNetworks;
  const freePort = options.freePort ?? kernelPickedPort;
  const local = new Map<string, LocalTunnel>();
  /** The poll or close in progress: they take turns, so a close never races a configure. */
  let running: Promise<unknown> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;

  async function takeDown(tunnel: LocalTunnel, reason: string): Promise<void> {
    await iface.down(tunnel);
    await removeTunnelConfig(tunnel);
    local.delete(tunnel.prn);
    log.info('tunnel taken down', { tunnel_prn: tunnel.prn, reason });
  }

  async function closeOnServer(prn: string, reason: string): Promise<boolean> {
    const res = await request('PATCH', `/tunnels/${encodeURIComponent(prn)}`, { state: 'closed', close_reason: reason });
    if (res.status !== 200 && res.status !== 404) {
      log.warn('tunnel close refused', { tunnel_prn: prn, status: res.status, code: errorSummary(res.body) });
      return false;
    }
    return true;
  }

  async function configure(tunnel: WireTunnel): Promise<void> {
    const ownAddresses = new Set([...local.values()].map((t) => t.deviceProxyIpAddress));
    const blocks = freeBlocks(config.remote_access_tunnels.cidr_blocks, networks(ownAddresses));
    if (blocks.length === 0) {
      log.warn('tunnel not configured: every cidr_blocks entry clashes with a device network', { tunnel_prn: tunnel.prn });
      return;
    }
    const used = new Set([...local.values()].map((t) => t.deviceProxyPort));
    let proxyPort = await freePort();
    for (let i = 0; i < 10 && used.has(proxyPort); i++) proxyPort = await freePort();
    const keys = generateWireguardKeyPair();
    const res = await request('POST', '/tunnels/configure', {
      tunnel_prn: tunnel.prn,
      device_public_key: keys.publicKey,
      device_proxy_port: proxyPort,
      cidr_blocks: blocks,
      port_ranges: config.remote_access_tunnels.port_ranges,
    });
    const opened = res.status === 200 ? openTunnelOf(res.body?.data) : null;
    if (!opened) {
      // 409 (closed meanwhile, ports exhausted) and the like: the next poll sees the new state.
      log.warn('tunnel configure refused', { tunnel_prn: tunnel.prn, status: res.status, code: errorSummary(res.body) });
      return;
    }
    const written = await writeTunnelConfig(dir, opened, keys.privateKey);
    local.set(written.prn, written);
    log.info('tunnel configured', {
      tunnel_prn: written.prn,
      interface: written.interfaceName,
      device_tunnel_port: written.deviceTunnelPort,
      device_proxy_port: written.deviceProxyPort,
      expires_at: written.expiresAt.toISOString(),
    });
    await iface.up(written);
  }

  async function act(action: TunnelAction): Promise<void> {
    switch (action.kind) {
      case 'configure':
        return configure(action.tunnel);
      case 'refuse':
        if (await closeOnServer(action.tunnel.prn, action.reason)) log.info('tunnel refused', { tunnel_prn: action.tunnel.prn, reason: action.reason, device_tunnel_port: action.tunnel.device_tunnel_port });
        return;
      case 'take_down':
        return takeDown(action.tunnel, action.reason);
      case 'extend':
        local.set(action.tunnel.prn, { ...action.tunnel, expiresAt: action.expiresAt });
        log.info('tunnel extended', { tunnel_prn: action.tunnel.prn, expires_at: action.expiresAt.toISOString() });
    }
  }

  async function poll(): Promise<PollResult> {
    const enabled = config.remote_access_tunnels.enabled;
    let listed: WireTunnel[] | null = null;
    if (enabled) {
      try {
        listed = await listTunnels(request);
      } catch (error) {
        log.warn('tunnel poll failed', { error: (error as Error).message });
      }
      if (listed === null) log.warn('tunnel poll: no list from the device API');
    }
    const actions = planTunnels({ enabled, portRanges, shell: config.remote_access_tunnels.shell ?? true, listed, local: [...local.values()], now: now() });
    for (const action of actions) {
      try {
        await act(action);
      } catch (error) {
        // One tunnel's failure (a transport error, a full disk) must not stop the others.
        log.error('tunnel action failed', { action: action.kind, tunnel_prn: action.tunnel.prn, error: (error as Error).message });
      }
    }
    return { listed: listed !== null, actions: actions.map((action) => action.kind) };
  }

  /** Runs `job` after the one in progress (if any) has finished. */
  function inTurn<T>(job: () => Promise<T>): Promise<T> {
    const next = (running ?? Promise.resolve(null)).catch(() => null).then(job);
    running = next;
    return next.finally(() => {
      if (running === next) running = null;
    });
  }

  const pollOnce = () => inTurn(poll);

  function schedule(): void {
    if (stopped) return;
    const interval = config.tunnel_poll_interval * 1000;
    // Wake for the next expiry if it comes before the next poll.
    const soonest = Math.min(...[...local.values()].map((t) => t.expiresAt.getTime() - now().getTime()), interval);
    // At least a second apart, so a tunnel that keeps failing to come down cannot spin the loop.
    timer = setTimeout(() => {
      pollOnce().finally(schedule);
    }, Math.max(1000, soonest));
    timer.unref?.();
  }

  let loaded = false;
  /** The tunnels a previous run left on disk; brought up again only by a running agent. */
  async function load(bringUp: boolean): Promise<void> {
    if (loaded) return;
    loaded = true;
    const found = await loadTunnelConfigs(dir);
    // Interfaces a killed daemon left without a file (it died before writing, or after removing it).
    await iface.prune?.(new Set(found.map((tunnel) => tunnel.interfaceName)));
    for (const tunnel of found) {
      local.set(tunnel.prn, tunnel);
      if (!bringUp) continue;
      try {
        await iface.up(tunnel);
      } catch (error) {
        // Kept in the list: the next poll takes it down if it is closed, or at its expiry.
        log.error('tunnel interface could not be brought up again', { tunnel_prn: tunnel.prn, error: (error as Error).message });
      }
    }
  }

  return {
    async start() {
      // Disabled: the leftovers are only taken down, never brought up first.
      await load(config.remote_access_tunnels.enabled);
      stopped = false;
      await pollOnce();
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
    pollOnce,
    close: (prn, reason = 'closed_by_device') =>
      inTurn(async () => {
        // A one-shot `canopy-daemon tunnels close` has not started: it still finds the file to remove.
        await load(false);
        const closed = await closeOnServer(prn, reason);
        const tunnel = local.get(prn);
        if (tunnel) await takeDown(tunnel, 'closed');
        if (!closed) throw new Error(`the device API refused to close ${prn}`);
      }),
    tunnels: () => [...local.values()],
  };
}
