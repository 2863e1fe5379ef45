/**
 * Two network namespaces made for one test run, joined by a veth pair on a private /24 whose
 * addresses exist only inside them: `listener` (10.203.N.1) and `clients` (10.203.N.2 onwards,
 * one address per client source). No address is added to the machine's own namespace. Names
 * carry a random suffix so runs never collide. Needs root and `ip` (iproute2).
 *
 * A listening socket opened in `listener` is handed to this process (`listenIn`): connections to
 * it arrive here from the clients' many addresses, as they would from many hosts.
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import type net from 'node:net';
import { namespaceProcesses } from './namespace-processes';

/** Why these namespaces cannot be made here, or null. */
export function namespacesUnsupportedReason(): string | null {
  if (process.getuid?.() !== 0) return 'needs root (ip netns add)';
  if (spawnSync('ip', ['-V']).status !== 0) return 'needs ip (apt-get install iproute2)';
  return null;
}

export interface AddressNamespaces {
  ns: { listener: string; clients: string };
  listenerIp: string;
  clientIps: string[];
  /** A listening TCP socket on listenerIp:port inside `listener`, accepting in this process. */
  listenIn(port: number): Promise<net.Server>;
  /** Starts a process inside a namespace; it is killed by destroy(). */
  spawn(ns: string, command: string, args: string[], options?: { cwd?: string }): ChildProcess;
  /** What a spawned process wrote (stdout and stderr, the last 100 kB). */
  output(child: ChildProcess): string;
  destroy(): void;
}

// Opens the socket inside the namespace, sends it to the parent, and leaves.
const LISTEN_SCRIPT = `const net = require('node:net');
const server = net.createServer();
server.listen(Number(process.argv[2]), process.argv[1], () => process.send('listening', server, () => { server.close(); process.disconnect(); }));`;

export function createAddressNamespaces(clientAddresses: number): AddressNamespaces {
  if (clientAddresses < 1 || clientAddresses > 250) throw new Error('from 1 to 250 client addresses');
  const suffix = randomBytes(3).toString('hex');
  const block = `10.203.${randomBytes(1)[0]}`;
  const ns = { listener: `cnL${suffix}`, clients: `cnA${suffix}` };
  const processes = namespaceProcesses(100_000);
  const ip = (args: string[], input?: string) => execFileSync('ip', args, { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString();
  const lab: AddressNamespaces = {
    ns,
    listenerIp: `${block}.1`,
    clientIps: Array.from({ length: clientAddresses }, (_, i) => `${block}.${i + 2}`),
    async listenIn(port) {
      const child = lab.spawn(ns.listener, process.execPath, ['-e', LISTEN_SCRIPT, lab.listenerIp, String(port)], {});
      const [, server] = (await once(child, 'message')) as [string, net.Server];
      return server;
    },
    spawn: (name, command, args, options = {}) => processes.spawn(name, command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] }),
    output: (child) => processes.output(child),
    destroy: () => processes.destroy(Object.values(ns), 'SIGKILL'),
  };
  try {
    for (const name of Object.values(ns)) {
      ip(['netns', 'add', name]);
      ip(['-n', name, 'link', 'set', 'lo', 'up']);
    }
    ip(['link', 'add', `vl${suffix}`, 'netns', ns.listener, 'type', 'veth', 'peer', 'name', `va${suffix}`, 'netns', ns.clients]);
    ip(['-n', ns.listener, 'address', 'add', `${lab.listenerIp}/24`, 'dev', `vl${suffix}`]);
    ip(['-n', ns.clients, '-batch', '-'], lab.clientIps.map((address) => `address add ${address}/24 dev va${suffix}\n`).join(''));
    ip(['-n', ns.listener, 'link', 'set', `vl${suffix}`, 'up']);
    ip(['-n', ns.clients, 'link', 'set', `va${suffix}`, 'up']);
  } catch (error) {
    lab.destroy();
    throw error;
  }
  return lab;
}
