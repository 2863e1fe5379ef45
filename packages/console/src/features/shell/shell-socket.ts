/**
 * The terminal page's connection to the admin server (packages/server/src/web-console/
 * shell-socket.ts): the WebSocket on the same origin, whose opening uses up the one-time URL.
 * Binary messages are terminal bytes both ways; text messages are JSON: resizes to the server,
 * status, refusal and the end of the session from it.
 */
export type ShellEvent =
  | { type: 'status'; state: 'waiting_for_device' | 'connected' }
  | { type: 'refused'; code: string }
  | { type: 'closed'; reason: string; exit_code: number | null };

export interface ShellConnection {
  send(data: string): void;
  resize(cols: number, rows: number): void;
  close(): void;
}

/** The socket's URL for a token: the page's own origin, ws: or wss: as the page is served. */
export function shellSocketUrl(location: Pick<Location, 'protocol' | 'host'>, token: string): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/web-console/shells/${encodeURIComponent(token)}/socket`;
}

export function connectShell(url: string, handlers: { output(bytes: Uint8Array): void; event(event: ShellEvent): void; dropped(): void }): ShellConnection {
  const socket = new WebSocket(url);
  socket.binaryType = 'arraybuffer';
  const encoder = new TextEncoder();
  let told = false;
  socket.onmessage = (message) => {
    if (message.data instanceof ArrayBuffer) return handlers.output(new Uint8Array(message.data));
    try {
      const event = JSON.parse(String(message.data)) as ShellEvent;
      if (event.type === 'refused' || event.type === 'closed') told = true;
      handlers.event(event);
    } catch {
      // Not ours: ignored.
    }
  };
  // Closed without a word (the network, a proxy): say so, once.
  socket.onclose = () => {
    if (!told) handlers.dropped();
  };
  return {
    send: (data) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(encoder.encode(data));
    },
    resize: (cols, rows) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'resize', cols, rows }));
    },
    close: () => socket.close(),
  };
}
