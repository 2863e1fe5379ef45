/**
 * The tunnel agent against a real Canopy server over mutual TLS, as an enrolled device with a real
 * certificate: it configures requested tunnels, the server shows them open with the device's key,
 * expiry and closes on either side take them down, and a restart picks up the files it left.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log.ts';
import { parseCidr, overlaps } from '../../src/tunnels/cidr.ts';
import { createDeviceClient, createDeviceTransport, type DeviceTransport } from '@canopy/sdk/device';
import { createTunnelAgent, loggingTunnelInterface, deviceApiFromConfig, deviceApiRequestOver, deviceApiRequestOverClient, runTunnels, type DeviceApiRequest, type TunnelAgentOptions } from '../../src/tunnels/index.ts';
import { deviceEnrollment, type EnrolledDevice } from '../../../server/test/support/device-json-client.ts';
import { useTestServer } from '../../../server/test/support/server.ts';

// A server start (PGlite) can take minutes on a loaded machine; set before useTestServer registers its hook.
vi.setConfig({ hookTimeout: 300_000, testTimeout: 180_000 });

const HAS_WG = spawnSync('wg', ['--version']).error === undefined;
const t = useTestServer({ tunnelPortRanges: [{ low: 40200, high: 40209 }], tunnelServerIpAddress: '198.51.100.7' });
const enroll = deviceEnrollment(t);

let device: EnrolledDevice;
let transport: DeviceTransport;
let request: DeviceApiRequest;
const dirs: string[] = [];
beforeAll(async () => {
  device = await enroll.device(t);
  // The SDK's device transport, as the daemon passes it (mutual TLS, the server CA pinned).
  transport = createDeviceTransport({ baseUrl: t.deviceUrl, certPem: device.certificate.certPem, keyPem: device.certificate.keyPem, caPem: t.deviceServerCaPem });
  request = deviceApiRequestOver(transport);
});
afterAll(() => {
  transport?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});
// Each test starts with none of this device's tunnels open.
afterEach(async () => {
  const listed = await device.api('GET', '/tunnels?limit=100');
  for (const tunnel of listed.body.tunnels) await t.api('PATCH', `/tunnels/${tunnel.prn}`, { state: 'closed' });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function agentFor(extra: Partial<TunnelAgentOptions> & { enabled?: boolean; stateDir?: string } = {}) {
  const stateDir = extra.stateDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-tunnels-'));
  dirs.push(stateDir);
  const lines: any[] = [];
  const agent = createTunnelAgent({
    config: {
      remote_access_tunnels: { enabled: extra.enabled ?? true, port_ranges: ['22', '8080-8090'], cidr_blocks: ['10.250.0.0/16', '10.251.0.0/16'] },
      tunnel_poll_interval: 10,
      state_dir: stateDir,
    },
    request,
    log: createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line)) }),
    networks: () => [],
    ...extra,
  });
  return { agent, stateDir, lines, dir: path.join(stateDir, 'tunnels') };
}

async function requestTunnel(extra: Record<string, unknown> = {}) {
  const res = await t.api('POST', '/tunnels', { device_prn: device.prn, device_tunnel_port: 22, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.tunnel;
}

const adminTunnel = async (prn: string) => (await t.api('GET', `/tunnels/${prn}`)).body.tunnel;
const publicKeyOf = (privateKey: string) =>
  createPublicKey(createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), Buffer.from(privateKey, 'base64')]), format: 'der', type: 'pkcs8' }))
    .export({ format: 'jwk' })
    .x!.replace(/-/g, '+')
    .replace(/_/g, '/')
    .concat('=');
const field = (text: string, name: string) => new RegExp(`^${name} = (.+)$`, 'm').exec(text)?.[1];

describe('tunnel agent against the device API', () => {
  it('configures a requested tunnel: the server shows it open with the key and port the device chose', async () => {
    const requested = await requestTunnel();
    const { agent, dir, lines } = agentFor();
    expect(await agent.pollOnce()).toEqual({ listed: true, actions: ['configure'] });

    const [local] = agent.tunnels();
    expect(local.prn).toBe(requested.prn);
    const file = path.join(dir, `${local.interfaceName}.conf`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const text = fs.readFileSync(file, 'utf8');
    const privateKey = field(text, 'PrivateKey')!;

    const shown = await adminTunnel(requested.prn);
    expect(shown).toMatchObject({ state: 'open', device_tunnel_port: 22, device_proxy_port: local.deviceProxyPort, server_tunnel_ip_address: '198.51.100.7' });
    // The server holds the public half of the private key in the file, and the file names the server's side.
    expect(shown.device_public_key).toBe(HAS_WG ? execFileSync('wg', ['pubkey'], { input: `${privateKey}\n` }).toString().trim() : publicKeyOf(privateKey));
    expect(field(text, 'PublicKey')).toBe(shown.server_public_key);
    expect(field(text, 'Endpoint')).toBe(`198.51.100.7:${shown.server_tunnel_port}`);
    expect(field(text, 'Address')).toBe(`${shown.device_proxy_ip_address}/32`);
    expect(field(text, 'AllowedIPs')).toBe(`${shown.server_proxy_ip_address}/32`);
    // Addresses from the configured blocks; the server's proxy port from the configured port_ranges.
    const blocks = ['10.250.0.0/16', '10.251.0.0/16'].map((b) => parseCidr(b)!);
    for (const address of [shown.device_proxy_ip_address, shown.server_proxy_ip_address]) expect(blocks.some((b) => overlaps(b, parseCidr(`${address}/32`)!))).toBe(true);
    expect(shown.server_proxy_port).toBe(22);
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['tunnel configured', 'tunnel interface up (not carrying traffic: logging interface)']));
    // No log line carries the private key.
    expect(JSON.stringify(lines)).not.toContain(privateKey);

    // A second poll changes nothing.
    expect(await agent.pollOnce()).toEqual({ listed: true, actions: [] });
    // A second tunnel gets its own key pair.
    await requestTunnel({ device_tunnel_port: 8085 });
    expect((await agent.pollOnce()).actions).toEqual(['configure']);
    const keys = agent.tunnels().map((x) => field(fs.readFileSync(x.configPath, 'utf8'), 'PrivateKey'));
    expect(new Set(keys).size).toBe(2);
  });

  it('expiry closes it: the device takes it down and the server shows it closed as expired', async () => {
    const requested = await requestTunnel({ ttl: 3 });
    const { agent, dir } = agentFor();
    await agent.pollOnce();
    expect((await adminTunnel(requested.prn)).state).toBe('open');
    expect(fs.readdirSync(dir)).toHaveLength(1);

    await sleep(Math.max(0, new Date(requested.expires_at).getTime() - Date.now()) + 200);
    expect(await agent.pollOnce()).toMatchObject({ actions: ['take_down'] });
    expect(agent.tunnels()).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual([]); // the key is forgotten
    let shown = await adminTunnel(requested.prn);
    for (let i = 0; i < 50 && shown.state !== 'closed'; i++) {
      await sleep(200);
      shown = await adminTunnel(requested.prn);
    }
    expect(shown).toMatchObject({ state: 'closed', close_reason: 'expired' });
  });

  it('started, it polls by itself and wakes at the expiry; a one-shot close finds the file the running agent wrote', async () => {
    const short = await requestTunnel({ ttl: 2 });
    const long = await requestTunnel();
    const running = agentFor();
    await running.agent.start();
    try {
      expect(running.agent.tunnels()).toHaveLength(2);
      // tunnel_poll_interval is 10 s; the expiry comes first and the agent wakes for it.
      await sleep(new Date(short.expires_at).getTime() - Date.now() + 1000);
      expect(running.agent.tunnels().map((x) => x.prn)).toEqual([long.prn]);

      // `canopy-daemon tunnels close <prn>` from another process: a fresh agent on the same state dir.
      const oneShot = agentFor({ stateDir: running.stateDir });
      await oneShot.agent.close(long.prn);
      expect(fs.readdirSync(running.dir)).toEqual([]);
      expect(await adminTunnel(long.prn)).toMatchObject({ state: 'closed', close_reason: 'closed_by_device' });
      expect((await running.agent.pollOnce()).actions).toEqual(['take_down']);
      expect(running.agent.tunnels()).toEqual([]);
    } finally {
      await running.agent.stop();
    }
  });

  it('a tunnel to a port outside port_ranges is closed at once, with the reason', async () => {
    const requested = await requestTunnel({ device_tunnel_port: 3389 });
    const { agent } = agentFor();
    expect((await agent.pollOnce()).actions).toEqual(['refuse']);
    expect(await adminTunnel(requested.prn)).toMatchObject({ state: 'closed', close_reason: 'port_not_allowed', device_public_key: null });
    expect(agent.tunnels()).toEqual([]);
  });

  it('closed by an admin: the next poll takes it down; closed from the device: the server records it', async () => {
    const first = await requestTunnel();
    const second = await requestTunnel();
    const { agent, dir } = agentFor();
    await agent.pollOnce();
    expect(agent.tunnels()).toHaveLength(2);

    expect((await t.api('PATCH', `/tunnels/${first.prn}`, { state: 'closed' })).status).toBe(200);
    expect((await agent.pollOnce()).actions).toEqual(['take_down']);
    expect(agent.tunnels().map((x) => x.prn)).toEqual([second.prn]);

    await agent.close(second.prn);
    expect(await adminTunnel(second.prn)).toMatchObject({ state: 'closed', close_reason: 'closed_by_device' });
    expect(agent.tunnels()).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a restart brings back the tunnels on disk; an open tunnel without its file is closed', async () => {
    const kept = await requestTunnel();
    const lost = await requestTunnel();
    const first = agentFor();
    await first.agent.pollOnce();
    const lostFile = first.agent.tunnels().find((x) => x.prn === lost.prn)!.configPath;
    fs.rmSync(lostFile);

    const second = agentFor({ stateDir: first.stateDir });
    await second.agent.start();
    await second.agent.stop();
    expect(second.agent.tunnels().map((x) => x.prn)).toEqual([kept.prn]);
    expect(second.lines.filter((l) => l.msg.startsWith('tunnel interface up')).map((l) => l.tunnel_prn)).toEqual([kept.prn]);
    expect(await adminTunnel(kept.prn)).toMatchObject({ state: 'open' });
    expect(await adminTunnel(lost.prn)).toMatchObject({ state: 'closed', close_reason: 'device_key_lost' });
  });

  it('only offers the blocks that do not clash with the device networks', async () => {
    const requested = await requestTunnel();
    const { agent } = agentFor({ networks: () => [parseCidr('10.250.7.0/24')!] });
    await agent.pollOnce();
    expect((await adminTunnel(requested.prn)).device_proxy_ip_address).toMatch(/^10\.251\./);
    await t.api('PATCH', `/tunnels/${requested.prn}`, { state: 'closed' });
    const none = await requestTunnel();
    const clashing = agentFor({ networks: () => [parseCidr('10.0.0.0/8')!] });
    expect((await clashing.agent.pollOnce()).actions).toEqual(['configure']);
    expect((await adminTunnel(none.prn)).state).toBe('requested');
    expect(clashing.lines.map((l) => l.msg)).toContain('tunnel not configured: every cidr_blocks entry clashes with a device network');
  });

  it('disabled: it does not poll and takes down what it had', async () => {
    const requested = await requestTunnel();
    const on = agentFor();
    await on.agent.pollOnce();
    const off = agentFor({ stateDir: on.stateDir, enabled: false });
    await off.agent.start();
    await off.agent.stop();
    expect(off.agent.tunnels()).toEqual([]);
    expect(fs.readdirSync(off.dir)).toEqual([]);
    // The server was not asked: the tunnel stays as the first agent left it.
    expect((await adminTunnel(requested.prn)).state).toBe('open');
  });

  it("through the daemon's DeviceClient: configure, refuse, close, and a 409 answered as a status", async () => {
    const client = createDeviceClient({ baseUrl: t.deviceUrl, certPem: device.certificate.certPem, keyPem: device.certificate.keyPem, caPem: t.deviceServerCaPem });
    try {
      const viaClient = deviceApiRequestOverClient(client);
      const good = await requestTunnel();
      const bad = await requestTunnel({ device_tunnel_port: 3389 });
      const { agent } = agentFor({ request: viaClient });
      expect((await agent.pollOnce()).actions.sort()).toEqual(['configure', 'refuse']);
      expect(await adminTunnel(good.prn)).toMatchObject({ state: 'open' });
      expect(await adminTunnel(bad.prn)).toMatchObject({ state: 'closed', close_reason: 'port_not_allowed' });
      // Configuring an open tunnel again is a 409, which the adapter hands back as an answer.
      const again = await viaClient('POST', '/tunnels/configure', { tunnel_prn: good.prn, cidr_blocks: ['10.9.0.0/30'], port_ranges: ['22'], device_proxy_port: 2222, device_public_key: (await adminTunnel(good.prn)).device_public_key });
      expect(again).toMatchObject({ status: 409, body: { errors: [{ code: 'invalid_state_transition' }] } });
      await agent.close(good.prn);
      expect(await adminTunnel(good.prn)).toMatchObject({ state: 'closed', close_reason: 'closed_by_device' });
    } finally {
      client.close();
    }
  });

  it('runTunnels, as the daemon runs it: configured on start, stopped on abort', async () => {
    const client = createDeviceClient({ baseUrl: t.deviceUrl, certPem: device.certificate.certPem, keyPem: device.certificate.keyPem, caPem: t.deviceServerCaPem });
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-tunnels-'));
    dirs.push(stateDir);
    const controller = new AbortController();
    try {
      const requested = await requestTunnel();
      const config = { remote_access_tunnels: { enabled: true, port_ranges: ['22'], cidr_blocks: ['10.250.0.0/16', '10.251.0.0/16'] }, tunnel_poll_interval: 10, state_dir: stateDir };
      const agent = await runTunnels({ config, client, log: createLogger({ write: () => {} }), signal: controller.signal, iface: loggingTunnelInterface(createLogger({ write: () => {} })) });
      expect(agent.tunnels().map((x) => x.prn)).toEqual([requested.prn]);
      expect(await adminTunnel(requested.prn)).toMatchObject({ state: 'open' });
      controller.abort();
      // Disabled, a later run takes the leftover down without asking the server.
      const off = await runTunnels({ config: { ...config, remote_access_tunnels: { ...config.remote_access_tunnels, enabled: false } }, client, log: createLogger({ write: () => {} }), signal: new AbortController().signal, iface: loggingTunnelInterface(createLogger({ write: () => {} })) });
      expect(off.tunnels()).toEqual([]);
      expect(fs.readdirSync(path.join(stateDir, 'tunnels'))).toEqual([]);
    } finally {
      controller.abort();
      client.close();
    }
  });

  it('from the configuration files: works with the server CA, and a transport failure changes nothing without it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-device-'));
    dirs.push(dir);
    const files = { certificate_path: path.join(dir, 'device.pem'), private_key_path: path.join(dir, 'device-key.pem'), server_ca_path: path.join(dir, 'server-ca.pem') };
    fs.writeFileSync(files.certificate_path, device.certificate.certPem);
    fs.writeFileSync(files.private_key_path, device.certificate.keyPem, { mode: 0o600 });
    fs.writeFileSync(files.server_ca_path, t.deviceServerCaPem);
    const requested = await requestTunnel();

    // Without the server CA (the system store does not know the test CA) the handshake fails.
    const unpinned = await deviceApiFromConfig({ device_api: { url: t.deviceUrl, certificate_path: files.certificate_path, private_key_path: files.private_key_path } });
    try {
      const { agent, lines } = agentFor({ request: unpinned.request });
      expect(await agent.pollOnce()).toEqual({ listed: false, actions: [] });
      expect(lines.map((l) => l.msg)).toContain('tunnel poll failed');
      expect((await adminTunnel(requested.prn)).state).toBe('requested');
    } finally {
      unpinned.close();
    }

    const pinned = await deviceApiFromConfig({ device_api: { url: t.deviceUrl, ...files } });
    try {
      const { agent } = agentFor({ request: pinned.request });
      expect(await agent.pollOnce()).toEqual({ listed: true, actions: ['configure'] });
      expect((await adminTunnel(requested.prn)).state).toBe('open');
    } finally {
      pinned.close();
    }
  });
});
