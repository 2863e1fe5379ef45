/**
 * An HTTP proxy in front of the server's public URL that sends download bodies (`GET /blobs/...`)
 * at a fixed rate, so a test can kill the daemon in the middle of a download. Everything else
 * passes through as is.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowProxy {
  url: string;
  /** Where requests go; set once the server is up (its port is known only then). */
  target: string;
  close(): Promise<void>;
}

export async function startSlowProxy(bytesPerSecond: number): Promise<SlowProxy> {
  const proxy: SlowProxy = { url: '', target: '', close: async () => {} };
  const server = http.createServer((request, response) => {
    const upstream = http.request(new URL(request.url!, proxy.target), { method: request.method, headers: request.headers }, async (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      const slow = request.method === 'GET' && request.url!.startsWith('/blobs/');
      try {
        for await (const chunk of answer as AsyncIterable<Buffer>) {
          for (let at = 0; at < chunk.length; at += 16 * 1024) {
            const piece = chunk.subarray(at, at + 16 * 1024);
            if (!response.write(piece)) await new Promise((r) => response.once('drain', r));
            if (slow) await new Promise((r) => setTimeout(r, (piece.length / bytesPerSecond) * 1000));
          }
        }
        response.end();
      } catch {
        response.destroy();
      }
    });
    upstream.on('error', () => response.destroy());
    response.on('close', () => upstream.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

