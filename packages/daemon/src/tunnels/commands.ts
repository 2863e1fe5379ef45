/**
 * Runs wireguard-go, wg and ip without a shell. A failure throws with the tool's stderr (never
 * its input, which may hold the tunnel's private key).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';

export async function run(command: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-2000)));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} ${args[0] ?? ''} exited with ${code}: ${stderr.trim()}`));
    });
    if (child.stdin) {
      // A tool that exits without reading its input must not take the process down with EPIPE.
      child.stdin.on('error', () => undefined);
      child.stdin.end(input);
    }
  });
}

const onPath = (tool: string) => (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, tool)));

/** Why this device cannot run tunnel interfaces, or null when it can (root, /dev/net/tun, the tools). */
export function wireguardUnsupportedReason(): string | null {
  if (process.getuid?.() !== 0) return 'not_root';
  if (!fs.existsSync('/dev/net/tun')) return 'no_tun_device';
  const missing = ['wireguard-go', 'wg', 'ip'].filter((tool) => !onPath(tool));
  return missing.length > 0 ? `missing_tools:${missing.join(',')}` : null;
}

/**
 * `wg setconf NAME FILE` with `text` in a file only root can read, removed at once: wg fopen()s
 * the path, which fails on /dev/stdin when stdin is a socket (as Node's child pipes are).
 */
export async function wgSetconf(name: string, text: string): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'canopy-wg-'));
  try {
    const file = path.join(dir, 'wg.conf');
    await writeFile(file, text, { mode: 0o600 });
    await run('wg', ['setconf', name, file]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
