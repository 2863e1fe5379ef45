/**
 * Load over mutual TLS, which autocannon cannot do with a different client certificate per
 * connection: N keep-alive connections, each a device with its own certificate, each sending
 * requests back to back for a fixed time (new connections per second: handshake-load.ts).
 * Latencies in milliseconds, percentiles over every request.
 */
import https from 'node:https';

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
}

export interface MtlsLoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

function get(url: URL, options: https.RequestOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = https.request(url, options, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

function summarize(latencies: number[], seconds: number, non2xx: number, errors: number): MtlsLoadResult {
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies.length === 0 ? 0 : Number(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1)));
  return { requestsPerSecond: latencies.length / seconds, p50: at(0.5), p99: at(0.99), non2xx, errors };
}

/** Keep-alive: each client holds one connection for the whole run. */
export async function mtlsLoad(options: MtlsLoadOptions): Promise<MtlsLoadResult> {
  const url = new URL(options.url);
  const deadline = Date.now() + options.seconds * 1000;
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const started = Date.now();
  await Promise.all(
    options.clients.map(async (client) => {
      const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: options.ca, cert: client.certPem, key: client.keyPem });
      try {
        while (Date.now() < deadline) {
          const t0 = performance.now();
          try {
            const status = await get(url, { agent, headers: options.headers });
            latencies.push(performance.now() - t0);
            if (status < 200 || status >= 300) non2xx += 1;
          } catch {
            errors += 1;
          }
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  return summarize(latencies, (Date.now() - started) / 1000, non2xx, errors);
}
