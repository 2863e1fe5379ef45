/**
 * Tunnels that carry traffic, end to end, in network namespaces this test makes (lab.ts): the
 * real server process in one, the daemon's tunnel agent process (real WireGuard interface) and
 * echo services in the "device" one, and an operator in a third. The operator connects to the
 * tunnel's server_proxy_port and exchanges bytes with the device's port 22; a port outside
 * port_ranges and a source outside cidr_block_allowlist are refused; closing from either side
 * or expiry ends the flow and removes the peer and both interfaces; a killed agent resumes.
 *
 * Needs root, /dev/net/tun, ip, wg and wireguard-go; skipped with the reason otherwise.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrolledDevice } from '../../../server/test/support/device-json-client.ts';
import type { Api } from '../../../server/test/support/server.ts';
import { startCanopyInLab, type CanopyInLab } from '../support/netns/canopy-in-lab.ts';
import { createLab, labUnsupportedReason, waitForLine, type Lab } from '../support/netns/lab.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const NETNS = path.resolve(here, '../support/netns');
const unsupported = labUnsupportedReason();
if (unsupported) console.warn(`skipping the tunnel data-plane tests: ${unsupported}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

describe.skipIf(unsupported !== null)(`tunnel data plane in network namespaces${unsupported ? ` (skipped: ${unsupported})` : ''}`, () => {
  let lab: Lab;
  let work: string;
  let admin: Api;
  let device: EnrolledDevice;
  let canopy: CanopyInLab;
  let agent: ChildProcess;

  const startAgent = async () => {
    agent = await canopy.startAgent();
  };

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-netns-'));
    lab = createLab();
    canopy = await startCanopyInLab(lab, work, { pollSeconds: 1, portRanges: ['22'], echoPorts: [22, 2323] });
    ({ admin, device } = canopy);
    await startAgent();
  });

  afterAll(() => {
    // CANOPY_NETNS_LOG=file keeps the processes' output for a failure's diagnosis.
    if (process.env.CANOPY_NETNS_LOG && lab) fs.writeFileSync(process.env.CANOPY_NETNS_LOG, `server:\n${lab.output(canopy?.server)}\nagent:\n${lab.output(agent)}\n`);
    lab?.destroy();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  /** The operator's attempt from `source` (one JSON result line; see tcp-client.mjs). */
  async function connect(source: string, host: string, port: number, text: string): Promise<{ echo?: string; refused?: string }> {
    const out = lab.exec(lab.ns.operator, process.execPath, [path.join(NETNS, 'tcp-client.mjs'), source, host, String(port), text]);
    return JSON.parse(out.trim().split('\n')[0]);
  }

  /** A connection that stays open after its echo; resolves with how long after `since` it ended. */
  async function holdConnection(source: string, host: string, port: number) {
    const child = lab.spawn(lab.ns.operator, process.execPath, [path.join(NETNS, 'tcp-client.mjs'), source, host, String(port), 'held', '--hold']);
    const first = JSON.parse(await waitForLine(child, (line) => line.startsWith('{'), 10_000));
    expect(first).toEqual({ echo: 'held' });
    return { ended: waitForLine(child, (line) => line.includes('ended_after_ms'), 30_000).then((line) => JSON.parse(line)) };
  }

  const interfaces = (ns: string, prefix: string) =>
    lab
      .exec(ns, 'ip', ['-o', 'link', 'show'])
      .split('\n')
      .map((line) => /^\d+:\s+([^:@\s]+)/.exec(line)?.[1])
      .filter((name): name is string => !!name && name.startsWith(prefix));
  const idHex = (prn: string) => prn.split(':').pop()!.replace(/-/g, '').slice(0, 10);

  async function requestOpenTunnel(extra: Record<string, unknown> = {}) {
    const created = await admin('POST', '/tunnels', { device_prn: device.prn, device_tunnel_port: 22, cidr_block_allowlist: [`${lab.operatorIps[0]}/32`], ...extra });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const prn: string = created.body.tunnel.prn;
    const tunnel = await waitFor('the tunnel to open', async () => {
      const got = await admin('GET', `/tunnels/${prn}`);
      return got.body.tunnel.state === 'open' ? got.body.tunnel : null;
    });
    // The device's interface and the WireGuard handshake follow the configure answer.
    await waitFor('bytes through the tunnel', async () => (await connect(lab.operatorIps[0], tunnel.server_proxy_ip_address, tunnel.server_proxy_port, 'ping')).echo === 'ping');
    return tunnel;
  }

  async function expectGone(tunnel: { prn: string; device_public_key: string }) {
    const server = `cnps${idHex(tunnel.prn)}`;
    const dev = `cnpy${idHex(tunnel.prn)}`;
    await waitFor('the server interface to go', () => !interfaces(lab.ns.server, 'cnps').includes(server));
    await waitFor('the device interface to go', () => !interfaces(lab.ns.device, 'cnpy').includes(dev));
    const peers = interfaces(lab.ns.server, 'cnps').flatMap((name) => lab.exec(lab.ns.server, 'wg', ['show', name, 'peers']).split('\n'));
    expect(peers).not.toContain(tunnel.device_public_key);
  }

  it('carries bytes between the operator and the device port 22, from allowed sources only', async () => {
    const tunnel = await requestOpenTunnel();
    const got = await admin('GET', `/tunnels/${tunnel.prn}`);
    expect(got.body.tunnel.server_data_plane).toEqual({ status: 'running', reason: null });
    // Both ends exist, with the device as the server interface's only peer.
    expect(interfaces(lab.ns.server, 'cnps')).toContain(`cnps${idHex(tunnel.prn)}`);
    expect(interfaces(lab.ns.device, 'cnpy')).toContain(`cnpy${idHex(tunnel.prn)}`);
    expect(lab.exec(lab.ns.server, 'wg', ['show', `cnps${idHex(tunnel.prn)}`, 'peers']).trim()).toBe(tunnel.device_public_key);
    // The server's end came up before its configure answer reached the device, so the handshake the
    // device starts at once finds it (rather than being retried after WireGuard's 5 s REKEY_TIMEOUT).
    const loggedAt = (output: string, msg: string, names: string) => {
      const line = output.split('\n').find((l) => l.includes(`"msg":"${msg}"`) && l.includes(names));
      expect(line, `a "${msg}" line for ${names}`).toBeTruthy();
      const time = JSON.parse(line!).time;
      return typeof time === 'number' ? time : Date.parse(time);
    };
    const serverUp = loggedAt(lab.output(canopy.server), 'tunnel data plane up', tunnel.prn.split(':').pop()!);
    expect(serverUp).toBeLessThanOrEqual(loggedAt(lab.output(agent), 'tunnel configured', tunnel.prn));

    const big = 'x'.repeat(100_000);
    expect(await connect(lab.operatorIps[0], tunnel.server_proxy_ip_address, tunnel.server_proxy_port, 'hello device')).toEqual({ echo: 'hello device' });
    expect(await connect(lab.operatorIps[0], tunnel.server_proxy_ip_address, tunnel.server_proxy_port, big)).toEqual({ echo: big });
    // The second operator address is outside cidr_block_allowlist.
    expect((await connect(lab.operatorIps[1], tunnel.server_proxy_ip_address, tunnel.server_proxy_port, 'let me in')).refused).toBeDefined();

    await admin('PATCH', `/tunnels/${tunnel.prn}`, { state: 'closed' });
    await expectGone(tunnel);
  });

  it('refuses a device port outside port_ranges: closed by the device, no interface', async () => {
    const created = await admin('POST', '/tunnels', { device_prn: device.prn, device_tunnel_port: 2323 });
    const prn: string = created.body.tunnel.prn;
    const closed = await waitFor('the device to refuse it', async () => {
      const got = await admin('GET', `/tunnels/${prn}`);
      return got.body.tunnel.state === 'closed' ? got.body.tunnel : null;
    });
    expect(closed.close_reason).toBe('port_not_allowed');
    expect(closed.server_proxy_port).toBeNull();
    expect(interfaces(lab.ns.device, 'cnpy')).not.toContain(`cnpy${idHex(prn)}`);
    expect(interfaces(lab.ns.server, 'cnps')).not.toContain(`cnps${idHex(prn)}`);
  });

  it('closing from the admin API ends a flow in progress and removes peer and interfaces', async () => {
    const tunnel = await requestOpenTunnel();
    const held = await holdConnection(lab.operatorIps[0], tunnel.server_proxy_ip_address, tunnel.server_proxy_port);
    await admin('PATCH', `/tunnels/${tunnel.prn}`, { state: 'closed' });
    expect((await held.ended).ended_after_ms).toBeGreaterThan(0);
    await expectGone(tunnel);
    expect((await connect(lab.operatorIps[0], tunnel.server_proxy_ip_address, tunnel.server_proxy_port, 'after')).refused).toBeDefined();
  });

  it('closing from the device ends the flow and removes peer and interfaces', async () => {
    const tunnel = await requestOpenTunnel();
    const held = await holdConnection(lab.operatorIps[0], tunnel.server_proxy_ip_address, tunnel.server_proxy_port);
    agent.stdin!.write(`close ${tunnel.prn}\n`);
    expect((await held.ended).ended_after_ms).toBeGreaterThan(0);
    await expectGone(tunnel);
    const got = await admin('GET', `/tunnels/${tunnel.prn}`);
    expect(got.body.tunnel).toMatchObject({ state: 'closed', close_reason: 'closed_by_device' });
  });

  it('expiry ends the flow and removes peer and interfaces', async () => {
    const tunnel = await requestOpenTunnel({ ttl: 8 });
    const held = await holdConnection(lab.operatorIps[0], tunnel.server_proxy_ip_address, tunnel.server_proxy_port);
    expect((await held.ended).ended_after_ms).toBeGreaterThan(0);
    await expectGone(tunnel);
    // The expiry job runs at expires_at; the data plane stops at expires_at without waiting for it.
    const closed = await waitFor('the expiry job', async () => {
      const got = await admin('GET', `/tunnels/${tunnel.prn}`);
      return got.body.tunnel.state === 'closed' ? got.body.tunnel : null;
    });
    expect(closed.close_reason).toBe('expired');
  });

  it('a killed agent resumes its open tunnel on restart and leaks no interface', async () => {
    const tunnel = await requestOpenTunnel();
    agent.kill('SIGKILL');
    await new Promise((resolve) => agent.once('exit', resolve));
    // An interface left by a run that died without its file: the next start removes it.
    lab.exec(lab.ns.device, 'wireguard-go', ['cnpy00000dead0']);
    await startAgent();
    expect(interfaces(lab.ns.device, 'cnpy')).not.toContain('cnpy00000dead0');
    await waitFor('bytes through the resumed tunnel', async () => (await connect(lab.operatorIps[0], tunnel.server_proxy_ip_address, tunnel.server_proxy_port, 'again')).echo === 'again');
    await admin('PATCH', `/tunnels/${tunnel.prn}`, { state: 'closed' });
    await expectGone(tunnel);
  });
});
