/**
 * Runs the network tools both ends of a tunnel drive (wireguard-go, wg, ip) without a shell, so
 * no value reaches a shell parser. A failure throws with the tool's own stderr (never its input,
 * which may hold a private key). Node only: the server's data plane
 * (packages/server/src/tunnels/data-plane/) and the daemon's tunnels (packages/daemon/src/tunnels/)
 * share it; the browser build never imports it.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
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
