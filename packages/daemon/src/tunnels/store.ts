/**
 * The device's tunnels on disk: one wg-quick file per open tunnel in the tunnels directory
 * (default `<state_dir>/tunnels`, mode 0700), mode 0600 because it holds the tunnel's private key.
 * Written atomically (temp file, fsync, rename, fsync of the directory), so a restart finds either
 * no file or a whole one; the file's header comments (wireguard-config.ts) say which tunnel it
 * is. Removing the file is how the daemon forgets the key.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { LocalTunnel } from './interface.ts';
import { deviceWireguardConfig, readConfigHeader } from './wireguard-config.ts';
import type { OpenTunnel } from './wire.ts';

const SUFFIX = '.conf';

/** `cnpy` + 10 hex characters of the tunnel's id: 14 characters, under Linux's 15 for interface names. */
export function interfaceNameOf(prn: string): string {
  const id = prn.split(':').pop()?.replace(/-/g, '').toLowerCase() ?? '';
  const hex = /^[0-9a-f]{10,}$/.test(id) ? id : createHash('sha256').update(prn).digest('hex');
  return `cnpy${hex.slice(0, 10)}`;
}

async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function writeTunnelConfig(dir: string, tunnel: OpenTunnel, privateKey: string): Promise<LocalTunnel> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  // Also when the directory was already there with a looser mode: it holds private keys.
  await fs.chmod(dir, 0o700);
  const interfaceName = interfaceNameOf(tunnel.prn);
  const configPath = path.join(dir, `${interfaceName}${SUFFIX}`);
  const temp = `${configPath}.tmp`;
  const handle = await fs.open(temp, 'w', 0o600);
  try {
    // The mode argument is masked by the umask; set it outright before the key goes in.
    await handle.chmod(0o600);
    await handle.writeFile(deviceWireguardConfig(tunnel, privateKey));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temp, configPath);
  await syncDir(dir);
  return {
    prn: tunnel.prn,
    interfaceName,
    configPath,
    expiresAt: tunnel.expiresAt,
    deviceTunnelPort: tunnel.deviceTunnelPort,
    deviceProxyPort: tunnel.deviceProxyPort,
    deviceProxyIpAddress: tunnel.deviceProxyIpAddress,
  };
}

export async function removeTunnelConfig(tunnel: LocalTunnel): Promise<void> {
  await fs.rm(tunnel.configPath, { force: true });
  await syncDir(path.dirname(tunnel.configPath)).catch(() => undefined);
}

/** The tunnels whose files are in `dir`; leftover temp files are removed, foreign files left alone. */
export async function loadTunnelConfigs(dir: string): Promise<LocalTunnel[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const tunnels: LocalTunnel[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    if (name.endsWith(`${SUFFIX}.tmp`)) {
      await fs.rm(file, { force: true });
      continue;
    }
    if (!name.endsWith(SUFFIX)) continue;
    const header = readConfigHeader(await fs.readFile(file, 'utf8'));
    if (!header || `${interfaceNameOf(header.prn)}${SUFFIX}` !== name) continue;
    tunnels.push({ ...header, interfaceName: interfaceNameOf(header.prn), configPath: file });
  }
  return tunnels;
}
