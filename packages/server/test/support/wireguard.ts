/**
 * Checks of WireGuard configuration files with Debian's wireguard-tools (`wg`, `wg-quick`).
 * Tests that need them skip, saying why, when `wg` is not installed
 * (apt-get install -y wireguard-tools).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const HAS_WG = spawnSync('wg', ['--version']).status === 0;
export const NO_WG_REASON = 'wireguard-tools is not installed (`wg` missing): apt-get install -y wireguard-tools';

/** `wg pubkey` of a base64 private key; throws when wg refuses the key. */
export function wgPubkey(privateKey: string): string {
  return execFileSync('wg', ['pubkey'], { input: `${privateKey}\n` }).toString().trim();
}

/** `wg genkey` and its public key, made by wg itself rather than by the code under test. */
export function wgKeyPair(): { privateKey: string; publicKey: string } {
  const privateKey = execFileSync('wg', ['genkey']).toString().trim();
  return { privateKey, publicKey: wgPubkey(privateKey) };
}

/** `wg-quick strip`: the file as wg(8) itself would read it (wg-quick's own keys removed). */
export function wgQuickStrip(config: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-wg-'));
  const file = path.join(dir, 'canopy0.conf');
  fs.writeFileSync(file, config, { mode: 0o600 });
  try {
    return execFileSync('wg-quick', ['strip', file], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface WgSection {
  name: string;
  entries: Record<string, string>;
}

/**
 * A strict reading of the INI-like format: sections [Interface] then [Peer]s, `Key = Value`
 * lines with the keys wg(8) and wg-quick(8) know, no key twice in a section.
 */
export function parseWgConfig(config: string): WgSection[] {
  const known: Record<string, Set<string>> = {
    Interface: new Set(['PrivateKey', 'ListenPort', 'FwMark', 'Address', 'DNS', 'MTU', 'Table', 'SaveConfig']),
    Peer: new Set(['PublicKey', 'PresharedKey', 'AllowedIPs', 'Endpoint', 'PersistentKeepalive']),
  };
  const sections: WgSection[] = [];
  for (const raw of config.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      if (!known[header[1]]) throw new Error(`unknown section ${line}`);
      sections.push({ name: header[1], entries: {} });
      continue;
    }
    const entry = /^(\w+)\s*=\s*(\S.*)$/.exec(line);
    const current = sections[sections.length - 1];
    if (!entry || !current) throw new Error(`cannot read line: ${raw}`);
    if (!known[current.name].has(entry[1])) throw new Error(`unknown key ${entry[1]} in [${current.name}]`);
    if (entry[1] in current.entries) throw new Error(`${entry[1]} twice in [${current.name}]`);
    current.entries[entry[1]] = entry[2];
  }
  if (sections[0]?.name !== 'Interface' || sections.filter((s) => s.name === 'Interface').length !== 1) throw new Error('needs exactly one [Interface], first');
  return sections;
}
