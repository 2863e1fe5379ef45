/**
 * The device API's transport: mutual TLS with the device's certificate and key, the server's CA
 * pinned (only that CA is trusted when given), and one kept-alive connection reused across calls,
 * so a device polling every few minutes does one TLS handshake per connection, not per call.
 * Built on node:https rather than fetch: a device agent should load as little as it can (the
 * daemon's idle memory is measured against a bare node process: bench/daemon-footprint.ts).
 */
import https from 'node:https';

export interface DeviceTlsOptions {
  /** Device API root, e.g. https://devices.example.com:4001. */
  baseUrl: string;
  /** The device certificate (PEM, chain after it) and its private key (PEM). */
  certPem: string | Buffer;
  keyPem: string | Buffer;
  /** PEM of the CA that signed the server's certificate; absent: the system's CA store. */
  caPem?: string | Buffer;
  /** No answer (or no progress on the socket) for this long fails the call; default 30 s. */
  timeoutMs?: number;
  /** Idle kept-alive connections are closed after this long; default 60 s. */
  keepAliveMs?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text ('' when empty). */
  text: string;
}

export interface SendOptions {
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
}

export interface DeviceTransport {
  readonly baseUrl: string;
  send(method: string, pathAndQuery: string, options?: SendOptions): Promise<RawResponse>;
  /** Closes the kept-alive connections (the daemon on shutdown, the simulator per device). */
  close(): void;
}

/** Bodies larger than this are refused: no device API answer comes close. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export function createDeviceTransport(options: DeviceTlsOptions): DeviceTransport {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 30_000;
  const agent = new https.Agent({
    keepAlive: true,
    keepAliveMsecs: 15_000,
    maxSockets: 4,
    timeout: options.keepAliveMs ?? 60_000,
    cert: options.certPem,
    key: options.keyPem,
    ca: options.caPem,
  });

  function send(method: string, pathAndQuery: string, sendOptions: SendOptions = {}): Promise<RawResponse> {
    const url = new URL(baseUrl + pathAndQuery);
    const headers: Record<string, string> = { accept: 'application/json', ...sendOptions.headers };
    let payload: Buffer | undefined;
    if (sendOptions.body !== undefined) {
      payload = Buffer.from(JSON.stringify(sendOptions.body));
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    return new Promise<RawResponse>((resolve, reject) => {
      const request = https.request(url, { method, headers, agent, signal: sendOptions.signal }, (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) request.destroy(new Error('device API answer too large'));
          else chunks.push(chunk);
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      });
      // An idle socket (no bytes either way) for timeoutMs fails the call rather than hanging.
      request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      request.on('error', reject);
      request.end(payload);
    });
  }

  return { baseUrl, send, close: () => agent.destroy() };
}
