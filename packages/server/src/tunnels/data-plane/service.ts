/**
 * The server's tunnel data plane, a background service of every server process (workers/
 * handlers.ts). Every second it compares the open, unexpired tunnels in the database with the
 * interfaces it runs: a newly configured tunnel gets its WireGuard interface
 * (wireguard-interface.ts) and TCP proxy (tcp-proxy.ts), a shell tunnel (shell-tunnels.ts) the
 * interface only; a closed or expired one loses both, its connections cut. A configure call
 * waits for a pass (bringUpConfiguredTunnel), so the server's end is up before the device's.
 * Reading the database, not hooking the calls, sees every process's changes and the expiry job's,
 * and a restart resumes open tunnels and removes leftovers. One interface per tunnel: each has its
 * own key pair and UDP port (allocation.ts). Unsupported (support.ts): it says so once, then idles.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Platform } from '../../platform';
import type { BackgroundService } from '../../workers/background-service';
import { tunnels } from '../schema';
import { isShellTunnel } from '../shell-tunnels';
import type { TunnelRow } from '../wire';
import { dataPlaneState } from './support';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';
import { bringUpServerEnd, interfacesNamed, removeInterface, SERVER_INTERFACE_PREFIX, serverInterfaceName } from './wireguard-interface';

const RECONCILE_MS = 1000;

interface RunningPlane {
  upNow(tunnelId: string, timeoutMs: number): Promise<boolean>;
}

/** The data plane running in this process for a platform (none when unavailable, disabled or stopped). */
const planes = new WeakMap<Platform, RunningPlane>();

/**
 * Brings the server end of a tunnel configured a moment ago up before the device hears the
 * answer, waiting at most `timeoutMs`; true when it is up in this process. Without a running
 * data plane (unavailable, disabled, no workers) it returns false at once.
 */
export function bringUpConfiguredTunnel(platform: Platform, tunnelId: string, timeoutMs: number): Promise<boolean> {
  return planes.get(platform)?.upNow(tunnelId, timeoutMs) ?? Promise.resolve(false);
}

interface RunningTunnel {
  id: string;
  name: string;
  proxy: TcpProxy | null;
}

async function openTunnels(platform: Platform): Promise<TunnelRow[]> {
  return platform.db
    .select()
    .from(tunnels)
    .where(and(eq(tunnels.state, 'open'), sql`${tunnels.expiresAt} > now()`));
}

export function createTunnelDataPlane(platform: Platform): BackgroundService {
  const { log } = platform;
  const running = new Map<string, RunningTunnel>();
  /** Tunnels that failed to come up: not retried every second (another process may own them). */
  const failed = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let pass: Promise<void> | null = null;
  /** The pass asked for by passSoon() that has not started yet: later askers share it. */
  let queued: Promise<void> | null = null;
  let active = false;

  async function bringUp(row: TunnelRow): Promise<void> {
    const name = serverInterfaceName(row.id);
    const tunnel: RunningTunnel = { id: row.id, name, proxy: null };
    await bringUpServerEnd({
      name,
      privateKey: platform.secrets.open(row.serverPrivateKeySealed!),
      listenPort: row.serverTunnelPort!,
      devicePublicKey: row.devicePublicKey!,
      serverAddress: row.serverProxyIpAddress!,
      deviceAddress: row.deviceProxyIpAddress!,
    });
    running.set(row.id, tunnel);
    // A shell's tunnel has no operator proxy: the shell relay, in the server, is its only client.
    if (isShellTunnel(row)) {
      log.info({ tunnel_id: row.id, interface: name }, 'tunnel data plane up (web console shell)');
      return;
    }
    tunnel.proxy = await startTcpProxy({
      listen: { address: row.serverProxyIpAddress!, port: row.serverProxyPort! },
      target: { address: row.deviceProxyIpAddress!, port: row.deviceProxyPort! },
      allowlist: row.cidrBlockAllowlist,
      onRefused: (source) => log.info({ tunnel_id: row.id, source }, 'tunnel connection refused: source not in cidr_block_allowlist'),
    });
    log.info({ tunnel_id: row.id, interface: name, proxy: `${row.serverProxyIpAddress}:${row.serverProxyPort}` }, 'tunnel data plane up');
  }

  async function takeDown(tunnel: RunningTunnel): Promise<void> {
    running.delete(tunnel.id);
    await tunnel.proxy?.close();
    await removeInterface(tunnel.name);
    log.info({ tunnel_id: tunnel.id, interface: tunnel.name }, 'tunnel data plane down');
  }

  async function reconcile(): Promise<void> {
    const open = await openTunnels(platform);
    const wanted = new Map(open.map((row) => [row.id, row]));
    for (const tunnel of [...running.values()]) if (!wanted.has(tunnel.id)) await takeDown(tunnel);
    for (const row of open) {
      if (running.has(row.id) || failed.has(row.id)) continue;
      try {
        await bringUp(row);
      } catch (error) {
        failed.add(row.id);
        const up = running.get(row.id);
        if (up) await takeDown(up);
        else await removeInterface(serverInterfaceName(row.id));
        log.error({ tunnel_id: row.id, error: (error as Error).message }, 'tunnel data plane could not bring the tunnel up');
      }
    }
    for (const id of [...failed]) if (!wanted.has(id)) failed.delete(id);
  }

  /** Interfaces of ours for tunnels that are no longer open: a previous run's, never leaked. */
  async function removeLeftovers(): Promise<void> {
    const open = new Set((await openTunnels(platform)).map((row) => serverInterfaceName(row.id)));
    for (const name of await interfacesNamed(SERVER_INTERFACE_PREFIX)) if (!open.has(name)) await removeInterface(name);
  }

  /**
   * Brings a just-configured tunnel's server end up now rather than at the next pass: the
   * device starts its handshake as soon as its own interface is up, and a handshake that finds
   * no server end is retried only after WireGuard's REKEY_TIMEOUT (5 s).
   */
  async function upNow(tunnelId: string, timeoutMs: number): Promise<boolean> {
    if (!active) return false;
    let timeout: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => (timeout = setTimeout(resolve, timeoutMs)));
    await Promise.race([passSoon(), gaveUp]);
    clearTimeout(timeout);
    return running.has(tunnelId);
  }

  /** One reconcile pass; passes never overlap, and each one ends by scheduling the next. */
  function runPass(first: () => Promise<void> = reconcile): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const current: Promise<void> = first()
      .catch((error) => log.warn({ error: (error as Error).message }, 'tunnel data plane pass failed'))
      .finally(() => {
        if (pass === current) pass = null;
        schedule();
      });
    pass = current;
    return current;
  }

  function schedule(): void {
    if (stopped || timer || pass) return;
    timer = setTimeout(() => {
      timer = null;
      void runPass();
    }, RECONCILE_MS);
  }

  /** A pass that starts after this call (so it reads what was just committed), as soon as the one running ends. */
  function passSoon(): Promise<void> {
    if (!queued) {
      queued = (pass ?? Promise.resolve()).then(() => {
        queued = null;
        return stopped ? undefined : runPass();
      });
    }
    return queued;
  }

  return {
    start() {
      const state = dataPlaneState(platform.config.tunnelDataPlane);
      if (state.status === 'disabled') return;
      if (state.status === 'unavailable') {
        log.warn({ reason: state.reason }, 'tunnel data plane unavailable: tunnels open and close, but carry no traffic (needs root, /dev/net/tun, wireguard-go, wg and ip)');
        return;
      }
      log.info('tunnel data plane running');
      active = true;
      planes.set(platform, { upNow });
      void runPass(() => removeLeftovers().then(reconcile));
    },
    async stop() {
      stopped = true;
      active = false;
      if (planes.get(platform)?.upNow === upNow) planes.delete(platform);
      if (timer) clearTimeout(timer);
      await queued;
      await pass;
      // Stopping the server takes its tunnels' interfaces with it; the next start brings the open ones back.
      for (const tunnel of [...running.values()]) await takeDown(tunnel);
    },
  };
}
