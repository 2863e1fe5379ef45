/**
 * The terminal page's WebSocket: `GET /web-console/shells/<token>/socket` with an Upgrade, on the
 * admin server. Opening it is the URL's one use (consumeShell): of any number of sockets and JSON
 * requests for one URL exactly one wins, and none after expires_at. A refused socket is still
 * accepted, told why (`{"type": "refused", "code": "web_console_shell_used"|
 * "web_console_shell_expired"|"not_found"}`) and closed with 4410 or 4404: a browser cannot read
 * the status of a refused upgrade. An Origin of another site is refused before anything is
 * consumed: the URL is the credential (cross-site WebSocket hijacking). The origin is compared
 * whole (scheme, host, port) with CANOPY_PUBLIC_URL's and with this server's own as the request
 * reached it (the console served straight from here).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { WebSocketServer, type WebSocket } from 'ws';
import { ApiError } from '../http/errors';
import type { Platform } from '../platform';
import { consumeShell, SHELL_URL_PATH } from './service';
import { startShellRelay, type RunningShell } from './shell-relay';

const SOCKET_PATH = new RegExp(`^${SHELL_URL_PATH}/([A-Za-z0-9_-]{1,128})/socket$`);
/** Keystrokes and resizes are small; a larger message is a broken or hostile client. */
const MAX_MESSAGE_BYTES = 64 * 1024;

function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

function sameOrigin(request: IncomingMessage, publicOrigin: string | null): boolean {
  const header = request.headers.origin;
  if (!header) return true; // not a browser: it holds the URL, which is the credential
  const origin = originOf(header);
  if (origin === null || origin === 'null') return false;
  if (origin === publicOrigin) return true;
  const scheme = (request.socket as TLSSocket).encrypted ? 'https' : 'http';
  return !!request.headers.host && origin === originOf(`${scheme}://${request.headers.host}`);
}

export interface ShellSockets {
  /** Answers an upgrade request; false when the path is not a shell socket's (left to others). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Ends every session (the server is stopping). */
  close(): Promise<void>;
}

export function shellSockets(platform: Platform): ShellSockets {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const running = new Set<RunningShell>();
  const publicOrigin = originOf(platform.config.publicUrl);

  async function open(ws: WebSocket, token: string): Promise<void> {
    let shell;
    try {
      shell = await consumeShell(platform.db, token);
    } catch (error) {
      const code = error instanceof ApiError ? (error.errors[0]?.code ?? 'refused') : 'server_error';
      if (!(error instanceof ApiError)) platform.log.error({ error: (error as Error).message }, 'web console shell: could not consume the url');
      ws.send(JSON.stringify({ type: 'refused', code }));
      ws.close(error instanceof ApiError && error.status === 404 ? 4404 : 4410, code);
      return;
    }
    const session = startShellRelay(platform, ws, shell, () => running.delete(session));
    running.add(session);
  }

  return {
    handleUpgrade(request, socket, head) {
      const path = (request.url ?? '').split('?')[0];
      const match = SOCKET_PATH.exec(path);
      if (!match) return false;
      if (!sameOrigin(request, publicOrigin)) {
        refuseUpgrade(socket, 403, 'Forbidden');
        return true;
      }
      wss.handleUpgrade(request, socket, head, (ws) => void open(ws, match[1]));
      return true;
    },
    async close() {
      await Promise.all([...running].map((session) => session.end('server_stopped')));
      wss.close();
    },
  };
}
