/**
 * Load over mutual TLS, which autocannon cannot do with a different client certificate per
 * connection: N keep-alive connections, each a device with its own certificate, each sending
 * requests back to back for a fixed time (new connections per second: handshake-load.ts).
 * Raw TLS sockets and a request text written as is (raw-http.ts), so the load generator leaves
 * the cores to the server it measures. Latencies in milliseconds, percentiles over every request.
 */
import tls from 'node:tls';
import { requestText, ResponseReader } from './raw-http';

export interface MtlsClient {
  certPem: string;
  keyPem: string;
}

export interface MtlsLoadOptions {
  url: string;
  /** What the client trusts (the server's CA). */
  ca: string;
  /** One connection per client. */
  clients: MtlsClient[];
  seconds: number;
  headers?: Record<string, string>;
  /** A JSON body: every request is then a POST of it. */
  body?: string;
}

export interface MtlsLoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Every request's latency, ascending: to take percentiles over several loads together (percentile). */
  latencies: number[];
}

/** The `q` quantile of ascending `latencies`, in milliseconds to one decimal. */
export function percentile(latencies: readonly number[], q: number): number {
  return latencies.length === 0 ? 0 : Number(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1));
}

function summarize(latencies: number[], seconds: number, non2xx: number, errors: number): MtlsLoadResult {
  latencies.sort((a, b) => a - b);
  return { requestsPerSecond: latencies.length / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), non2xx, errors, latencies };
}

/**
 * One device's connection, sending the next request as soon as the previous answer has ended,
 * until `deadline`. A broken connection counts one error and is opened again.
 */
function runConnection(url: URL, options: tls.ConnectionOptions, request: string, deadline: number, out: { latencies: number[]; non2xx: number; errors: number }): Promise<void> {
  return new Promise((resolve) => {
    const connect = () => {
      const reader = new ResponseReader();
      let sentAt = 0;
      let finished = false;
      const socket = tls.connect({ ...options, host: url.hostname, port: Number(url.port) });
      const send = () => {
        sentAt = performance.now();
        socket.write(request);
      };
      // The first request goes whatever the time, so a probe of a few milliseconds still gets an answer.
      const sendOrFinish = () => {
        if (Date.now() < deadline) return send();
        finished = true;
        socket.end();
        resolve();
      };
      socket.on('secureConnect', send);
      socket.on('data', (chunk: Buffer) => {
        let statuses: number[];
        try {
          statuses = reader.push(chunk);
        } catch {
          return socket.destroy(new Error('unreadable response'));
        }
        for (const status of statuses) {
          out.latencies.push(performance.now() - sentAt);
          if (status < 200 || status >= 300) out.non2xx += 1;
        }
        if (statuses.length > 0) sendOrFinish();
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        if (finished) return;
        out.errors += 1;
        if (Date.now() < deadline) setTimeout(connect, 10);
        else resolve();
      });
    };
    connect();
  });
}

/** Keep-alive: each client holds one connection for the whole run. */
export async function mtlsLoad(options: MtlsLoadOptions): Promise<MtlsLoadResult> {
  const url = new URL(options.url);
  const request = requestText(url, options.headers ?? {}, options.body);
  const deadline = Date.now() + options.seconds * 1000;
  const out = { latencies: [] as number[], non2xx: 0, errors: 0 };
  const started = Date.now();
  await Promise.all(options.clients.map((client) => runConnection(url, { ca: options.ca, cert: client.certPem, key: client.keyPem }, request, deadline, out)));
  return summarize(out.latencies, (Date.now() - started) / 1000, out.non2xx, out.errors);
}
