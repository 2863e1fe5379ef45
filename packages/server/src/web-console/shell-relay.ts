/**
 * One web console shell session: the browser's WebSocket on one side, the device's PTY service on
 * the other, through a tunnel requested for it (tunnels/shell-tunnels.ts). The daemon brings up
 * its end on its next poll, this process's data plane the server's; the relay connects between
 * the two tunnel addresses and carries frames (@canopy/sdk/shell-frames). To the browser: binary
 * is terminal output, text is JSON `{"type": "status", "state": "waiting_for_device"|"connected"}`
 * or `{"type": "closed", "reason", "exit_code"}`; from it: binary keystrokes, text `{"type":
 * "resize", "cols", "rows"}`. The session ends once (shell exit, browser gone, tunnel closed or
 * expired as seen every second, device unreachable in time, server stop): it closes the tunnel
 * and records `web_console_shell.closed` with the session's length.
 */
import net from 'node:net';
import { encodeFrame, frameDecoder } from '@canopy/sdk/shell-frames';
import type { WebSocket } from 'ws';
import type { Platform } from '../platform';
import { closeShellTunnel, requestShellTunnel, shellTunnelNow } from '../tunnels/shell-tunnels';
import { tunnelPrn, type TunnelRow } from '../tunnels/wire';
import { recordShellClosed, recordShellOpened, type ShellSession } from './events';
import type { ShellRow } from './service';

/** How long the shell's tunnel lives at most (the admin API's tunnel ttl limit): a session's longest. */
export const SHELL_TUNNEL_TTL = 3600;
/** How long the device has to open the tunnel and answer: a few of its polls (10 s by default). */
export const DEVICE_WAIT_MS = 90_000;
const WATCH_MS = 1000;
const CONNECT_TIMEOUT_MS = 2000;

export interface RunningShell {
  end(reason: string): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function connectOnce(row: TunnelRow): Promise<net.Socket | null> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: row.deviceProxyIpAddress!, port: row.deviceProxyPort!, localAddress: row.serverProxyIpAddress!, timeout: CONNECT_TIMEOUT_MS });
    const fail = () => {
      socket.destroy();
      resolve(null);
    };
    socket.once('error', fail);
    socket.once('timeout', fail);
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.removeListener('error', fail);
      resolve(socket);
    });
  });
}

/** Why a session ends with its tunnel: the device refused shells, the tunnel expired, or it was closed. */
function endReason(now: { row: TunnelRow; expired: boolean } | null): string {
  if (now?.row.closeReason === 'shell_disabled') return 'shell_disabled';
  // Past expires_at, whether or not the expiry job has closed it yet (it closes with reason `expired`).
  if (now && (now.expired || (now.row.state === 'closed' && now.row.closeReason === 'expired'))) return 'tunnel_expired';
  return 'tunnel_closed';
}

export function startShellRelay(platform: Platform, ws: WebSocket, shell: ShellRow, onEnded: () => void): RunningShell {
  const { db, log } = platform;
  const session: ShellSession = { shell, startedAt: new Date(), tunnelPrn: null };
  let tunnel: TunnelRow | null = null;
  let device: net.Socket | null = null;
  let exitCode: number | null = null;
  let ending: Promise<void> | null = null;
  let watch: NodeJS.Timeout | null = null;
  /** The tunnel request and the opened event: an early end waits for them, so it closes that tunnel. */
  const opening = (async () => {
    tunnel = await requestShellTunnel(db, { organizationId: shell.organizationId, deviceId: shell.deviceId, actorPrn: shell.createdByPrn, ttlSeconds: SHELL_TUNNEL_TTL });
    session.tunnelPrn = tunnelPrn(tunnel);
    await db.transaction((tx) => recordShellOpened(tx, session));
  })();

  const tell = (message: Record<string, unknown>) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };

  function end(reason: string): Promise<void> {
    ending ??= (async () => {
      if (watch) clearInterval(watch);
      device?.destroy();
      tell({ type: 'closed', reason, exit_code: exitCode });
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(reason === 'exited' ? 1000 : 4000, reason);
      try {
        await opening.catch(() => undefined);
        if (tunnel) await closeShellTunnel(db, tunnel, 'web_console_shell_ended', null);
        await db.transaction((tx) => recordShellClosed(tx, session, { endedAt: new Date(), reason, exitCode }));
      } catch (error) {
        log.error({ error: (error as Error).message, shell_id: shell.id }, 'web console shell: could not record its end');
      }
      log.info({ shell_id: shell.id, reason }, 'web console shell ended');
      onEnded();
    })();
    return ending;
  }

  /** The tunnel as it is now; ends the session (and answers null) once it is closed or expired. */
  async function tunnelStillOpen(): Promise<TunnelRow | null> {
    const now = tunnel ? await shellTunnelNow(db, tunnel) : null;
    if (!now || now.row.state === 'closed' || now.expired) {
      void end(endReason(now));
      return null;
    }
    return now.row;
  }

  function relay(socket: net.Socket): void {
    device = socket;
    tell({ type: 'status', state: 'connected' });
    const decode = frameDecoder((frame) => {
      if (frame.kind === 'data') ws.send(frame.bytes, { binary: true });
      else if (frame.kind === 'exit') exitCode = frame.code;
    });
    socket.on('data', (chunk: Buffer) => {
      try {
        decode(chunk);
      } catch {
        socket.destroy();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (exitCode !== null) return void end('exited');
      // Cut without an exit: most often because the tunnel closed (the device takes its end down).
      void tunnelStillOpen()
        .then((open) => open && end('device_closed'))
        .catch(() => end('device_closed'));
    });
  }

  ws.on('message', (data, isBinary) => {
    if (!device || device.destroyed) return;
    const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    if (isBinary) {
      device.write(encodeFrame({ kind: 'data', bytes }));
      return;
    }
    try {
      const message = JSON.parse(bytes.toString('utf8')) as { type?: unknown; cols?: unknown; rows?: unknown };
      const size = (n: unknown) => (Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 1000 ? (n as number) : null);
      const cols = size(message.cols);
      const rows = size(message.rows);
      if (message.type === 'resize' && cols && rows) device.write(encodeFrame({ kind: 'resize', cols, rows }));
    } catch {
      // Not JSON: ignored, like any message the relay does not know.
    }
  });
  ws.on('close', () => void end('browser_closed'));
  ws.on('error', () => void end('browser_closed'));

  void (async () => {
    try {
      await opening;
      if (ending) return;
      tell({ type: 'status', state: 'waiting_for_device' });
      const deadline = Date.now() + DEVICE_WAIT_MS;
      while (!ending) {
        const now = await tunnelStillOpen();
        if (!now) return;
        if (now.state === 'open') {
          const socket = await connectOnce(now);
          if (socket && ending) socket.destroy();
          if (socket && !ending) {
            relay(socket);
            break;
          }
        }
        if (Date.now() > deadline) return void end('device_unreachable');
        await sleep(500);
      }
      watch = setInterval(() => void tunnelStillOpen().catch(() => undefined), WATCH_MS);
    } catch (error) {
      log.error({ error: (error as Error).message, shell_id: shell.id }, 'web console shell failed');
      void end('server_error');
    }
  })();

  return { end };
}
