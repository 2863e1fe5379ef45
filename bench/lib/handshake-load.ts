/**
 * New TLS connections per second against a mutual-TLS server: every connection is a full
 * handshake (the client offers no session to resume) and one request. The client runs in
 * several worker threads so it is not what caps the figure on a small machine, and the CPU
 * spent per handshake is measured for the client, the server process and (when given) the
 * PostgreSQL backends serving it: comparable between runs whatever else the machine is doing.
 */
import { Worker } from 'node:worker_threads';
import { databaseCpuClock, ownCpuMs, processCpuMs } from './cpu-time';
import type { HandshakeWorkerInput, HandshakeWorkerOutput } from './handshake-worker';
import type { MtlsClient, MtlsLoadResult } from './mtls-load';

export interface HandshakeLoadOptions {
  url: string;
  /** What the client trusts (the server's CA). */
  ca: string;
  /** Devices taken in turn, one new connection each. */
  clients: MtlsClient[];
  seconds: number;
  /** Connections in flight at once, over all threads. */
  concurrency: number;
  /** Client threads. */
  threads: number;
  headers?: Record<string, string>;
  /** Each client connects exactly once: the first connections of a fleet (nothing known about them yet). */
  once?: boolean;
  /** The server's pid, and the database whose PostgreSQL backends serve it: their CPU time is charged per handshake. */
  serverPid?: number;
  databaseUrl?: string;
}

export interface HandshakeLoadResult extends Omit<MtlsLoadResult, 'latencies'> {
  /** CPU milliseconds per completed handshake (null when not measured). */
  cpuMsPerHandshake: { client: number; server: number | null; database: number | null };
}

// Worker threads do not inherit tsx's loader: the thread registers it before importing the worker.
const WORKER_BOOT = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./handshake-worker.ts', import.meta.url).href)}); })`;

interface ClientThread {
  /** Resolves once the thread has made its secure contexts. */
  ready: Promise<void>;
  go(): void;
  result: Promise<HandshakeWorkerOutput>;
}

function startThread(input: HandshakeWorkerInput): ClientThread {
  const worker = new Worker(WORKER_BOOT, { eval: true, workerData: input });
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const result = new Promise<HandshakeWorkerOutput>((resolve, reject) => {
    worker.on('message', (message: 'ready' | HandshakeWorkerOutput) => (message === 'ready' ? markReady() : resolve(message)));
    worker.once('error', reject);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`handshake worker exited with ${code}`)));
  });
  return { ready: Promise.race([ready, result.then(() => {})]), go: () => worker.postMessage('go'), result };
}

export async function handshakeLoad(options: HandshakeLoadOptions): Promise<HandshakeLoadResult> {
  const threads = Math.max(1, Math.min(options.threads, options.concurrency));
  const clientThreads = Array.from({ length: threads }, (_, t) =>
    startThread({
      url: options.url,
      ca: options.ca,
      clients: options.clients.filter((_, i) => i % threads === t),
      seconds: options.seconds,
      concurrency: Math.floor(options.concurrency / threads) + (t < options.concurrency % threads ? 1 : 0),
      headers: options.headers ?? {},
      once: options.once,
    }),
  );
  await Promise.all(clientThreads.map((thread) => thread.ready));
  const databaseClock = options.databaseUrl ? await databaseCpuClock(options.databaseUrl) : null;
  const cpuBefore = { client: ownCpuMs(), server: options.serverPid ? processCpuMs(options.serverPid) : 0 };
  const started = Date.now();
  for (const thread of clientThreads) thread.go();
  const outputs = await Promise.all(clientThreads.map((thread) => thread.result));
  const elapsedSeconds = (Date.now() - started) / 1000;
  const cpuAfter = { client: ownCpuMs(), server: options.serverPid ? processCpuMs(options.serverPid) : 0, database: databaseClock ? await databaseClock.stop() : null };
  const latencies = outputs.flatMap((o) => o.latencies).sort((a, b) => a - b);
  const count = Math.max(latencies.length, 1);
  const at = (q: number) => (latencies.length === 0 ? 0 : Number(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1)));
  return {
    requestsPerSecond: latencies.length / elapsedSeconds,
    p50: at(0.5),
    p99: at(0.99),
    non2xx: outputs.reduce((n, o) => n + o.non2xx, 0),
    errors: outputs.reduce((n, o) => n + o.errors, 0),
    cpuMsPerHandshake: {
      client: (cpuAfter.client - cpuBefore.client) / count,
      server: options.serverPid ? (cpuAfter.server - cpuBefore.server) / count : null,
      database: cpuAfter.database === null ? null : cpuAfter.database / count,
    },
  };
}

/** Cores the target is stated for: the server's CPU per handshake says what they could sustain. */
export const TARGET_CORES = 2;

/**
 * Handshakes per second `cores` could sustain for the server side alone (its process and its
 * PostgreSQL backends), from the CPU it spent per handshake: on this shared machine the client
 * and the neighbours' work take cores the server would have on its own.
 */
export function impliedCapacity(result: HandshakeLoadResult, cores = TARGET_CORES): number | null {
  const { server, database } = result.cpuMsPerHandshake;
  if (server === null) return null;
  return (cores * 1000) / (server + (database ?? 0));
}

/** One line: rate, p99, where the CPU went per handshake, and the capacity that implies. */
export function formatHandshakes(name: string, result: HandshakeLoadResult): string {
  const cpu = result.cpuMsPerHandshake;
  const parts = [`client ${cpu.client.toFixed(2)}`, cpu.server === null ? null : `server ${cpu.server.toFixed(2)}`, cpu.database === null ? null : `PostgreSQL ${cpu.database.toFixed(2)}`];
  const capacity = impliedCapacity(result);
  const implied = capacity === null ? '' : `  => server side alone: ${capacity.toFixed(0)} /s on ${TARGET_CORES} cores`;
  const problems = result.non2xx || result.errors ? `  !! non-2xx ${result.non2xx}, errors ${result.errors}` : '';
  return (
    `${name.padEnd(28)} ${result.requestsPerSecond.toFixed(0).padStart(7)} /s     p99 ${String(result.p99).padStart(6)} ms` +
    `  CPU ms per handshake: ${parts.filter(Boolean).join(', ')}${implied}${problems}`
  );
}
