/**
 * Servers under test run as child processes, so the load generator never shares their event
 * loop, and their memory can be read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Child {
  process: ChildProcess;
  stop(): Promise<void>;
  rssMb(): number;
  peakRssMb(): number;
}

/**
 * Starts `node [nodeArgs] <script>` (`node --import tsx <script>` for TypeScript) and resolves once `ready()`
 * answers true (polled).
 */
export async function startNode(
  script: string,
  env: Record<string, string>,
  ready: () => Promise<boolean>,
  timeoutMs = 120_000,
  nodeArgs: string[] = [],
): Promise<Child> {
  // BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the servers under test.
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...nodeArgs, ...extra, ...loader, script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const status = (field: string) => {
    try {
      const text = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  };
  const handle: Child = {
    process: child,
    rssMb: () => status('VmRSS'),
    peakRssMb: () => status('VmHWM'),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}:\n${stderr}`);
    if (await ready().catch(() => false)) return handle;
    await new Promise((r) => setTimeout(r, 200));
  }
  await handle.stop();
  throw new Error(`${script} did not become ready:\n${stderr}`);
}

/** True once `url` answers 200. */
export const answers = (url: string) => async () => (await fetch(url)).ok;

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
