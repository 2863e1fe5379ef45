/**
 * The real server as a child process (`node --import tsx src/main.ts`), for tests that must kill
 * it: same entry point, settings from environment variables only, like production.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import type { Api } from './server';

const SERVER_PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * A port free now, for a server a test starts later, chosen outside Linux's ephemeral range
 * (32768-60999): there, any socket bound to port 0 and every outgoing connection of the suites
 * running beside this one (npm test runs two lanes) could take it before the server listens.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port between 20000 and 31999');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** What it wrote to stderr, for failure messages. */
  stderr(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * `startTimeoutMs`: PGlite on disk needs 20-60 s for its first start (initdb + migrations) on a
 * loaded 2-core machine. `nodeArgs`: extra node flags (benchmarks profile with `--cpu-prof`).
 */
export async function spawnServer(env: Record<string, string>, port: number, startTimeoutMs = 120_000, nodeArgs: string[] = []): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_PACKAGE,
    // Only what the test gives: no DATABASE_URL or CANOPY_* leaking in from the outer shell.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CANOPY_ADMIN_PORT: String(port), CANOPY_DEVICE_PORT: '0', CANOPY_TUNNEL_DATA_PLANE: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-20_000)));
  child.stdout!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${stderr}`);
    const healthy = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (healthy) break;
    if (Date.now() > deadline) {
      // Not left running: a test that gives up on it has no handle to stop it with.
      child.kill('SIGKILL');
      throw new Error(`server did not start within ${startTimeoutMs / 1000} s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    stderr: () => stderr,
    async kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
  };
}

/** An admin API client of a server process (`baseUrl` may be a getter: a restarted process keeps its port). */
export function processApi(baseUrl: string | (() => string), key: string): Api {
  const base = typeof baseUrl === 'string' ? () => baseUrl : baseUrl;
  return async (method, url, body) => {
    const res = await fetch(`${base()}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
}

/** Cleanups a test file registers as it goes, run in reverse order after it. */
export function cleanupsAfterAll(): (...more: (() => Promise<unknown> | unknown)[]) => void {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  return (...more) => {
    cleanups.push(...more);
  };
}
