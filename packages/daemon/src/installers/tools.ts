/**
 * Running the device's own tools (dpkg, rauc, swupdate) for the installers: whether one is on
 * PATH, and a run that collects its output, honours the install's abort signal and gives errors
 * that end with the tool's last line of complaint (what the daemon reports).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The absolute path of `command` on PATH, or null (asked before any download). */
export function onPath(command: string, envPath = process.env.PATH ?? ''): string | null {
  for (const dir of envPath.split(':').filter(Boolean)) {
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Each line of output as it comes (progress). */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
}

/** Runs `command args`, resolving with its exit code and output; rejects only if it cannot start. */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env, signal: options.signal });
    const out = { stdout: '', stderr: '' };
    for (const stream of ['stdout', 'stderr'] as const) {
      let partial = '';
      child[stream].on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        if (out[stream].length < 1 << 20) out[stream] += text;
        if (!options.onLine) return;
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) options.onLine(line, stream);
      });
    }
    child.on('error', (error) => (options.signal?.aborted ? reject(new Error('install interrupted')) : reject(error)));
    child.on('close', (code) => resolve({ code, ...out }));
  });
}

/** The tool's last non-empty line of error output, for a failure reason. */
export function lastComplaint(result: RunResult): string {
  const lines = `${result.stderr}\n${result.stdout}`.split('\n').map((l) => l.trim()).filter(Boolean);
  return (result.stderr.trim() ? result.stderr : result.stdout).split('\n').map((l) => l.trim()).filter(Boolean).at(-1) ?? lines.at(-1) ?? `exit ${result.code}`;
}

/** Runs and throws `<what> failed: <last complaint>` on a non-zero exit. */
export async function runOrThrow(what: string, command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) throw new Error(`${what} failed (exit ${result.code}): ${lastComplaint(result)}`.slice(0, 1000));
  return result;
}
