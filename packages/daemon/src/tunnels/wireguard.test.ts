/** The key pair and the configuration file checked with WireGuard's own tools when installed. */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deviceWireguardConfig, readConfigHeader } from './wireguard-config.ts';
import { generateWireguardKeyPair } from './wireguard-keys.ts';
import { openTunnelOf } from './wire.ts';

const HAS_WG = spawnSync('wg', ['--version']).error === undefined;

const tunnel = {
  prn: 'prn:1:0b5e2c1e-0000-4000-8000-000000000001:tunnel:7d4f2a9c-1b2e-4c3d-9e8f-0a1b2c3d4e5f',
  expiresAt: new Date('2026-11-26T13:00:00.123Z'),
  deviceTunnelPort: 22,
  deviceProxyIpAddress: '10.250.0.2',
  deviceProxyPort: 40022,
  serverProxyIpAddress: '10.250.0.1',
  serverPublicKey: generateWireguardKeyPair().publicKey,
  serverTunnelIpAddress: '198.51.100.7',
  serverTunnelPort: 51820,
};

describe('WireGuard keys and configuration', () => {
  it('each call makes a new key pair in wg format', () => {
    const a = generateWireguardKeyPair();
    const b = generateWireguardKeyPair();
    expect(a.privateKey).not.toBe(b.privateKey);
    for (const key of [a.privateKey, a.publicKey]) expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(a.publicKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it.skipIf(!HAS_WG)('wg pubkey derives the same public key', () => {
    const pair = generateWireguardKeyPair();
    expect(execFileSync('wg', ['pubkey'], { input: `${pair.privateKey}\n` }).toString().trim()).toBe(pair.publicKey);
  });

  it('writes the documented device end, with a header the daemon reads back', () => {
    const pair = generateWireguardKeyPair();
    const text = deviceWireguardConfig(tunnel, pair.privateKey);
    expect(text).toContain(`[Interface]\nPrivateKey = ${pair.privateKey}\nAddress = 10.250.0.2/32\n`);
    expect(text).toContain(`[Peer]\nPublicKey = ${tunnel.serverPublicKey}\nEndpoint = 198.51.100.7:51820\nAllowedIPs = 10.250.0.1/32\nPersistentKeepalive = 25\n`);
    expect(readConfigHeader(text)).toEqual({ prn: tunnel.prn, expiresAt: tunnel.expiresAt, deviceTunnelPort: 22, deviceProxyPort: 40022, deviceProxyIpAddress: '10.250.0.2' });
    const v6 = deviceWireguardConfig({ ...tunnel, deviceProxyIpAddress: 'fd00::2', serverProxyIpAddress: 'fd00::1', serverTunnelIpAddress: '2001:db8::7' }, pair.privateKey);
    expect(v6).toContain('Address = fd00::2/128');
    expect(v6).toContain('Endpoint = [2001:db8::7]:51820');
    expect(readConfigHeader('[Interface]\nPrivateKey = x\n')).toBeNull();
  });

  it.skipIf(!HAS_WG)('wg-quick strip accepts the file and keeps the key and peer', () => {
    const pair = generateWireguardKeyPair();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-wg-'));
    try {
      const file = path.join(dir, 'cnpy7d4f2a9c1b.conf');
      fs.writeFileSync(file, deviceWireguardConfig(tunnel, pair.privateKey), { mode: 0o600 });
      const stripped = execFileSync('wg-quick', ['strip', file], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
      expect(stripped).toContain(`PrivateKey = ${pair.privateKey}`);
      expect(stripped).toContain('Endpoint = 198.51.100.7:51820');
      expect(stripped).not.toContain('Address');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('openTunnelOf accepts only a complete open tunnel', () => {
    const answer = {
      prn: tunnel.prn,
      state: 'open' as const,
      device_tunnel_port: 22,
      expires_at: tunnel.expiresAt.toISOString(),
      device_proxy_ip_address: '10.250.0.2',
      device_proxy_port: 40022,
      device_public_key: 'k',
      server_proxy_ip_address: '10.250.0.1',
      server_proxy_port: 22,
      server_public_key: tunnel.serverPublicKey,
      server_tunnel_ip_address: '198.51.100.7',
      server_tunnel_port: 51820,
    };
    expect(openTunnelOf(answer)).toEqual(tunnel);
    expect(openTunnelOf({ ...answer, state: 'requested' })).toBeNull();
    expect(openTunnelOf({ ...answer, server_public_key: null })).toBeNull();
    expect(openTunnelOf({ ...answer, expires_at: 'soon' })).toBeNull();
    expect(openTunnelOf(undefined)).toBeNull();
    expect(openTunnelOf('oops' as never)).toBeNull();
  });
});
