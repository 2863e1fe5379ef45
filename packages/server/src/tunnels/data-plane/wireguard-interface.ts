/**
 * One tunnel's server end as a userspace WireGuard interface: `wireguard-go NAME` (it returns
 * once the interface and its control socket exist, leaving the daemon running), `wg setconf`
 * with the key, UDP port and the device as only peer (through a root-only temporary file, removed at once),
 * then one `ip -batch` for the server's tunnel address, link up and a host route to the device's. `ip link del` removes the
 * interface, and wireguard-go exits when its interface goes.
 *
 * Names: `cnps` + the first 10 hex digits of the tunnel id (14 characters; Linux allows 15).
 * The device side uses `cnpy`, so both ends can share a test machine's root namespace.
 */
import fs from 'node:fs';
import { run, wgSetconf } from './commands';

export const SERVER_INTERFACE_PREFIX = 'cnps';

export function serverInterfaceName(tunnelId: string): string {
  return `${SERVER_INTERFACE_PREFIX}${tunnelId.replace(/-/g, '').slice(0, 10).toLowerCase()}`;
}

export interface ServerEnd {
  name: string;
  privateKey: string;
  listenPort: number;
  devicePublicKey: string;
  serverAddress: string;
  deviceAddress: string;
}

const prefixLength = (address: string) => (address.includes(':') ? 128 : 32);

/** wg(8)'s configuration format (not wg-quick's: no Address line). */
function wgConfig(end: ServerEnd): string {
  return [
    '[Interface]',
    `PrivateKey = ${end.privateKey}`,
    `ListenPort = ${end.listenPort}`,
    '',
    '[Peer]',
    `PublicKey = ${end.devicePublicKey}`,
    `AllowedIPs = ${end.deviceAddress}/${prefixLength(end.deviceAddress)}`,
    '',
  ].join('\n');
}

/**
 * Every tool started here is on the way to the tunnel's first byte (the device's configure
 * waits for it): about 0.1 s each on a quiet machine and up to a second on a loaded one, so
 * the `ip` changes go in one `ip -batch` run and the leftover check reads sysfs.
 */
export async function bringUpServerEnd(end: ServerEnd): Promise<void> {
  // A leftover of the same name (a crash between these steps) is replaced, not reused.
  if (interfaceExists(end.name)) await removeInterface(end.name);
  await startWireguardGo(end.name);
  try {
    await wgSetconf(end.name, wgConfig(end));
    await run('ip', ['-batch', '-'], [
      `address add ${end.serverAddress}/${prefixLength(end.serverAddress)} dev ${end.name}`,
      `link set up dev ${end.name}`,
      `route replace ${end.deviceAddress}/${prefixLength(end.deviceAddress)} dev ${end.name}`,
      '',
    ].join('\n'));
  } catch (error) {
    await removeInterface(end.name);
    throw error;
  }
}

/** Whether an interface of this name may exist in this process's network namespace (sysfs; yes where it is not mounted). */
function interfaceExists(name: string): boolean {
  return !fs.existsSync('/sys/class/net') || fs.existsSync(`/sys/class/net/${name}`);
}

/** `wireguard-go NAME`; if a leftover sysfs did not show holds the name, removes it and tries once more. */
async function startWireguardGo(name: string): Promise<void> {
  try {
    await run('wireguard-go', [name]);
  } catch {
    await removeInterface(name);
    await run('wireguard-go', [name]);
  }
}

/** Removes the interface if it is there (its route and address go with it). */
export async function removeInterface(name: string): Promise<void> {
  await run('ip', ['link', 'del', 'dev', name]).catch(() => undefined);
}

/** Names of the interfaces on this machine that start with `prefix`. */
export async function interfacesNamed(prefix: string): Promise<string[]> {
  const out = await run('ip', ['-o', 'link', 'show']);
  return out
    .split('\n')
    .map((line) => /^\d+:\s+([^:@\s]+)/.exec(line)?.[1])
    .filter((name): name is string => !!name && name.startsWith(prefix));
}

/** The device's WireGuard peer as the interface sees it (tests and diagnostics): public keys listed by `wg show`. */
export async function peersOf(name: string): Promise<string[]> {
  const out = await run('wg', ['show', name, 'peers']);
  return out.split('\n').filter(Boolean);
}
