/**
 * A local HTTPS webhook receiver for tests: its own CA and a certificate for localhost and
 * 127.0.0.1 made with the openssl CLI, every request recorded with its raw body, and the answer
 * chosen per request by the test (status, delay, body size) so failures can be staged.
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { makeOpensslWorkdir, openssl, opensslCreateCa, type OpensslCertificate } from './openssl';

export interface ReceivedRequest {
  headers: Record<string, string | string[] | undefined>;
  path: string;
  rawBody: string;
  body: any;
  receivedAt: number;
  /** What the receiver answered. */
  status: number;
}

export interface Answer {
  status?: number;
  /** Wait this long before answering (a hanging receiver). */
  delayMs?: number;
  /** Answer this many bytes of body. */
  bodyBytes?: number;
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  /** PEM file of the CA the receiver's certificate chains to: the server's CANOPY_WEBHOOK_CA_FILE. */
  caFile: string;
  requests: ReceivedRequest[];
  /** Decides each answer; default 200. */
  respond: (request: { body: any; rawBody: string; path: string }) => Answer;
  /** TLS connections accepted so far, open now, and most open at once (keep-alive behaviour). */
  connections: { opened: number; open: number; peak: number };
  close(): Promise<void>;
}

async function issueServerCertificate(dir: string, ca: OpensslCertificate): Promise<{ certPem: string; keyPem: string }> {
  const keyPath = join(dir, 'receiver.key');
  const certPath = join(dir, 'receiver.pem');
  await openssl(dir, ['ecparam', '-genkey', '-name', 'prime256v1', '-noout', '-out', keyPath]);
  await openssl(dir, [
    'req', '-x509', '-new', '-key', keyPath, '-CA', ca.certPath, '-CAkey', ca.keyPath, '-days', '2', '-sha256',
    '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
    '-addext', 'basicConstraints=critical,CA:FALSE',
    '-addext', 'extendedKeyUsage=serverAuth',
    '-out', certPath,
  ]);
  return { certPem: await readFile(certPath, 'utf8'), keyPem: await readFile(keyPath, 'utf8') };
}

/** `host`: the address to listen on (default 127.0.0.1); the url names it `localhost` either way. */
export async function startReceiver(options: { port?: number; host?: string } = {}): Promise<Receiver> {
  const work = await makeOpensslWorkdir();
  const ca = await opensslCreateCa(work.dir, { name: 'receiver-ca', commonName: 'Canopy Test Receiver CA', days: 2 });
  const { certPem, keyPem } = await issueServerCertificate(work.dir, ca);
  const receiver: Receiver = {
    url: '',
    caFile: ca.certPath,
    requests: [],
    respond: () => ({ status: 200 }),
    connections: { opened: 0, open: 0, peak: 0 },
    close: async () => {},
  };
  const server = https.createServer({ cert: certPem, key: keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try {
        body = JSON.parse(rawBody);
      } catch {
        // recorded as raw text only
      }
      const path = req.url ?? '/';
      const answer = receiver.respond({ body, rawBody, path });
      const status = answer.status ?? 200;
      receiver.requests.push({ headers: req.headers, path, rawBody, body, receivedAt: Date.now(), status });
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'text/plain', ...answer.headers });
        if (answer.bodyBytes) {
          // Written in chunks so a client that stops reading is not buffered for.
          const chunk = Buffer.alloc(64 * 1024, 'x');
          let left = answer.bodyBytes;
          const pump = () => {
            while (left > 0) {
              const part = chunk.subarray(0, Math.min(chunk.length, left));
              left -= part.length;
              if (!res.write(part)) return void res.once('drain', pump);
            }
            res.end();
          };
          res.on('error', () => {});
          pump();
        } else res.end('ok');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  server.on('secureConnection', (socket) => {
    const counts = receiver.connections;
    counts.opened++;
    counts.open++;
    counts.peak = Math.max(counts.peak, counts.open);
    socket.on('close', () => counts.open--);
  });
  server.keepAliveTimeout = 30_000;
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `https://localhost:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await work.remove();
  };
  return receiver;
}

/** Waits until `condition` holds, polling; fails with `what` after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
