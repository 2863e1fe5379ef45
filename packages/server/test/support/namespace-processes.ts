/**
 * Processes a test starts inside network namespaces it made (address-namespaces.ts, and the
 * daemon's tunnel lab): each one's output kept for failure messages, and at the end every one of
 * them, and anything else still inside the namespaces, ended before the namespaces go.
 */
import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';

export interface NamespaceProcesses {
  spawn(ns: string, command: string, args: string[], options?: { env?: NodeJS.ProcessEnv; cwd?: string; stdio?: StdioOptions }): ChildProcess;
  /** The last `keepBytes` a spawned process wrote (stdout and stderr). */
  output(child: ChildProcess | undefined): string;
  /** Kills the spawned processes, then by id whatever else runs in `namespaces`, then deletes them. */
  destroy(namespaces: string[], signal: NodeJS.Signals): void;
}

export function namespaceProcesses(keepBytes: number): NamespaceProcesses {
  const children: ChildProcess[] = [];
  const outputs = new Map<ChildProcess, string>();
  return {
    spawn(ns, command, args, options = {}) {
      const child = spawn('ip', ['netns', 'exec', ns, command, ...args], { env: options.env ?? process.env, cwd: options.cwd, stdio: options.stdio ?? ['pipe', 'pipe', 'pipe'] });
      children.push(child);
      // Always drained, so a chatty process never blocks on a full pipe.
      outputs.set(child, '');
      const keep = (chunk: Buffer) => outputs.set(child, (outputs.get(child)! + chunk).slice(-keepBytes));
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      return child;
    },
    output: (child) => (child ? outputs.get(child) ?? '' : ''),
    destroy(namespaces, signal) {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      for (const name of namespaces) {
        // Processes that detached from their starter (wireguard-go daemons) outlive the namespace otherwise.
        const pids = spawnSync('ip', ['netns', 'pids', name]).stdout?.toString().split(/\s+/).filter(Boolean) ?? [];
        for (const pid of pids) {
          try {
            process.kill(Number(pid), signal);
          } catch {
            // already gone
          }
        }
        spawnSync('ip', ['netns', 'del', name]);
      }
    },
  };
}
