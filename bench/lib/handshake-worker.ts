/**
 * One client thread of the handshake load (handshake-load.ts): `concurrency` loops, each opening a
 * new TLS connection with the next device's certificate, sending one request with
 * `connection: close` and reading the answer to its end. Raw TLS and a hand-written request
 * rather than node:https, and one secure context per device made up front (a device loads its
 * key once, not per connection), so the client spends its CPU on the handshake and little else.
 */
import tls from 'node:tls';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { requestText } from './raw-http';

export interface HandshakeWorkerInput {
  url: string;
  ca: string;
  clients: { certPem: string; keyPem: string }[];
  seconds: number;
  concurrency: number;
  headers: Record<string, string>;
  /** Each client connects exactly once (then the run ends early), instead of in turn until `seconds` pass. */
  once?: boolean;
}

export interface HandshakeWorkerOutput {
  latencies: number[];
  non2xx: number;
  errors: number;
}

const STATUS_LINE = /^HTTP\/1\.1 (\d{3})/;

/**
 * The server's name is not checked: OpenSSL still verifies its chain against `ca`, but Node's
 * name check decodes the whole peer certificate into a JavaScript object (getPeerCertificate),
 * about an eighth of this client's CPU per handshake (perf, 2026-11-24). Node asks for that
 * object before it calls the check, whatever the check does, so each socket's getPeerCertificate
 * answers an empty one (set before the handshake ends). That is the devices' work, not the
 * server's, and on these 2 cores it would be taken from the server measured.
 */
const skipNameCheck = () => undefined;
const noPeerCertificate = () => ({}) as tls.DetailedPeerCertificate;

function once(url: URL, context: tls.SecureContext, request: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: url.hostname, port: Number(url.port), secureContext: context, checkServerIdentity: skipNameCheck });
    socket.getPeerCertificate = noPeerCertificate;
    let head = '';
    socket.on('secureConnect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      if (head.length < 16) head += chunk.toString('latin1', 0, 16);
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const status = STATUS_LINE.exec(head);
      if (status) resolve(Number(status[1]));
      else reject(new Error('connection closed without an HTTP answer'));
    });
  });
}

/** Set up, then say `ready` and wait for `go`: the caller starts its CPU clock after every thread's setup. */
async function run(input: HandshakeWorkerInput, port: MessagePort): Promise<HandshakeWorkerOutput> {
  const url = new URL(input.url);
  const contexts = input.clients.map((client) => tls.createSecureContext({ ca: input.ca, cert: client.certPem, key: client.keyPem }));
  const request = requestText(url, { ...input.headers, connection: 'close' });
  await new Promise<void>((resolve) => {
    port.once('message', () => resolve());
    port.postMessage('ready');
  });
  const deadline = Date.now() + input.seconds * 1000;
  const out: HandshakeWorkerOutput = { latencies: [], non2xx: 0, errors: 0 };
  let next = 0;
  await Promise.all(
    Array.from({ length: input.concurrency }, async () => {
      while (Date.now() < deadline && !(input.once && next >= contexts.length)) {
        const context = contexts[next++ % contexts.length];
        const t0 = performance.now();
        try {
          const status = await once(url, context, request);
          out.latencies.push(performance.now() - t0);
          if (status < 200 || status >= 300) out.non2xx += 1;
        } catch {
          out.errors += 1;
        }
      }
    }),
  );
  return out;
}

if (parentPort) parentPort.postMessage(await run(workerData as HandshakeWorkerInput, parentPort));
