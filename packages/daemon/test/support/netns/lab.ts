/**
 * Three network namespaces made for one test run, wired with veth pairs whose addresses exist
 * only inside them: `server` (Canopy), `device` (the daemon's tunnel agent, its services) and
 * `operator` (who connects to the tunnel). No address is added to the machine's own namespace,
 * and no packet leaves the namespaces. Names carry a random suffix so runs never collide.
 *
 *   operator 10.201.N.2, .3  ──veth──  10.201.N.1 server 10.200.N.1  ──veth──  10.200.N.2 device
 *
 * The operator routes the tunnel blocks (10.250.0.0/16) to the server, where the per-tunnel
 * proxies listen on the server's tunnel addresses.
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { namespaceProcesses } from '../../../../server/test/support/namespace-processes';

/** Why the namespace tests cannot run here, or null. */
export function labUnsupportedReason(): string | null {
  if (process.getuid?.() !== 0) return 'needs root (network namespaces, TUN interfaces)';
  if (!fs.existsSync('/dev/net/tun')) return 'needs /dev/net/tun';
  for (const tool of ['ip', 'wg', 'wireguard-go']) if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `needs ${tool} (apt-get install iproute2 wireguard-tools wireguard-go)`;
  return null;
}

export interface Lab {
  ns: { server: string; device: string; operator: string };
  serverIp: string;
  deviceIp: string;
  operatorSideServerIp: string;
  operatorIps: [string, string];
  tunnelBlock: string;
  /** Runs a command in a namespace and returns stdout (throws on failure). */
  exec(ns: string, command: string, args: string[]): string;
  /** Starts a long-running process in a namespace; it is killed by destroy(). */
  spawn(ns: string, command: string, args: string[], options?: { env?: NodeJS.ProcessEnv; cwd?: string }): ChildProcess;
  /** The last 200 kB a spawned process wrote (stdout and stderr), for failure messages. */
  output(child: ChildProcess | undefined): string;
  destroy(): void;
}

export function createLab(): Lab {
  const suffix = randomBytes(3).toString('hex');
  const n = randomBytes(1)[0];
  const ns = { server: `cnS${suffix}`, device: `cnD${suffix}`, operator: `cnO${suffix}` };
  const processes = namespaceProcesses(200_000);
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  const lab: Lab = {
    ns,
    serverIp: `10.200.${n}.1`,
    deviceIp: `10.200.${n}.2`,
    operatorSideServerIp: `10.201.${n}.1`,
    operatorIps: [`10.201.${n}.2`, `10.201.${n}.3`],
    tunnelBlock: '10.250.0.0/16',
    exec: (name, command, args) => execFileSync('ip', ['netns', 'exec', name, command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }).toString(),
    spawn: (name, command, args, options = {}) => processes.spawn(name, command, args, options),
    output: (child) => processes.output(child),
    // wireguard-go daemons detach from their starter: ended by their ids, gently.
    destroy: () => processes.destroy(Object.values(ns), 'SIGTERM'),
  };
  try {
    for (const name of Object.values(ns)) {
      ip('netns', 'add', name);
      ip('-n', name, 'link', 'set', 'lo', 'up');
    }
    ip('link', 'add', `vs${suffix}`, 'netns', ns.server, 'type', 'veth', 'peer', 'name', `vd${suffix}`, 'netns', ns.device);
    ip('link', 'add', `vo${suffix}`, 'netns', ns.server, 'type', 'veth', 'peer', 'name', `vp${suffix}`, 'netns', ns.operator);
    ip('-n', ns.server, 'address', 'add', `${lab.serverIp}/24`, 'dev', `vs${suffix}`);
    ip('-n', ns.device, 'address', 'add', `${lab.deviceIp}/24`, 'dev', `vd${suffix}`);
    ip('-n', ns.server, 'address', 'add', `${lab.operatorSideServerIp}/24`, 'dev', `vo${suffix}`);
    for (const address of lab.operatorIps) ip('-n', ns.operator, 'address', 'add', `${address}/24`, 'dev', `vp${suffix}`);
    for (const [name, dev] of [[ns.server, `vs${suffix}`], [ns.device, `vd${suffix}`], [ns.server, `vo${suffix}`], [ns.operator, `vp${suffix}`]]) ip('-n', name, 'link', 'set', dev, 'up');
    ip('-n', ns.operator, 'route', 'add', lab.tunnelBlock, 'via', lab.operatorSideServerIp);
  } catch (error) {
    lab.destroy();
    throw error;
  }
  return lab;
}

/** Resolves with the first line of `child`'s stdout that `match` accepts; rejects if it exits first. */
export function waitForLine(child: ChildProcess, match: (line: string) => boolean, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`no matching line in ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffer += chunk;
      let index;
      while ((index = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        if (match(line)) {
          clearTimeout(timer);
          child.stdout!.off('data', onData);
          resolve(line);
          return;
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited (${code}) before the line; stderr: ${stderr.slice(-2000)}`));
    });
  });
}
