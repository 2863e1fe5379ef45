/**
 * Tunnels carrying traffic, in network namespaces made for the run (root; lab.ts): the real
 * server process, the daemon's tunnel agent process, and an operator.
 *
 * 1. TCP throughput through an open tunnel beside a direct TCP connection between the same two
 *    namespaces (server -> device over their veth): the tunnel path is server -> WireGuard
 *    (wireguard-go on both ends) -> the device's forwarder -> 127.0.0.1; the operator path adds
 *    the server's proxy in front. Target: tunnel at least 40% of direct.
 * 2. Time from POST /tunnels to the first byte back through the tunnel, with the agent polling
 *    every 10 s as the daemon does by default (p50, p95 of BENCH_TUNNEL_SAMPLES, default 8).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCanopyInLab } from '../packages/daemon/test/support/netns/canopy-in-lab.ts';
import { createLab, labUnsupportedReason, waitForLine } from '../packages/daemon/test/support/netns/lab.ts';

const here = path.join(path.dirname(fileURLToPath(import.meta.url)), 'tunnels');
const MEGABYTES = Number(process.env.BENCH_TUNNEL_MB ?? 32);
const SAMPLES = Number(process.env.BENCH_TUNNEL_SAMPLES ?? 8);
const ROUNDS = 3;
/** Which parts to run: `throughput`, `first-byte` (comma-separated; default both). */
const PARTS = (process.env.BENCH_TUNNEL_PARTS ?? 'throughput,first-byte').split(',');

const unsupported = labUnsupportedReason();
if (unsupported) {
  console.log(`tunnels benchmark skipped: ${unsupported}`);
  process.exit(0);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];

const lab = createLab();
let canopyServer: ChildProcess | undefined;
let agentProcess: ChildProcess | undefined;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-tunnels-'));
try {
  const canopy = await startCanopyInLab(lab, work, { pollSeconds: 10, portRanges: ['22', '8022'], echoPorts: [22] });
  // 0.0.0.0:5002 also answers on the tunnel address: WireGuard alone, without the device's forwarder.
  const sink = lab.spawn(lab.ns.device, process.execPath, [path.join(here, 'sink.mjs'), '127.0.0.1:8022', `${lab.deviceIp}:5001`, '0.0.0.0:5002']);
  await waitForLine(sink, (line) => line === 'ready');
  canopyServer = canopy.server;
  const agent = await canopy.startAgent();
  agentProcess = agent;
  const { admin, device } = canopy;

  async function openTunnel(port: number) {
    const started = Date.now();
    const created = await admin('POST', '/tunnels', { device_prn: device.prn, device_tunnel_port: port });
    if (created.status !== 201) throw new Error(`POST /tunnels: ${created.status} ${JSON.stringify(created.body)}`);
    for (;;) {
      const got = await admin('GET', `/tunnels/${created.body.tunnel.prn}`);
      if (got.body.tunnel.state === 'open') return { tunnel: got.body.tunnel, started, openedAt: Date.now() };
      await sleep(100);
    }
  }
  const send = (ns: string, host: string, port: number) => {
    const result = JSON.parse(lab.exec(ns, process.execPath, [path.join(here, 'send.mjs'), host, String(port), String(MEGABYTES)]).trim());
    if (result.bytes !== MEGABYTES * 1024 * 1024) throw new Error(`sink counted ${result.bytes} bytes`);
    return (MEGABYTES * 8) / (result.ms / 1000);
  };

  /** The log line of `child` whose msg is `msg` and that names the tunnel: its time in epoch ms. */
  const loggedAt = (child: typeof agent, msg: string, names: string): number | null => {
    for (const line of lab.output(child).split('\n')) {
      if (!line.includes(msg) || !line.includes(names)) continue;
      const time = JSON.parse(line).time;
      return typeof time === 'number' ? time : Date.parse(time);
    }
    return null;
  };
  /** Where one sample's time went: the agent's configure and interface, the server's interface, the handshake. */
  type Tunnel = Awaited<ReturnType<typeof openTunnel>>['tunnel'];
  const trace = (t: Tunnel, started: number, openedAt: number, firstByteMs: number): string => {
    const id = t.prn.split(':').pop()!;
    const at = (time: number | null) => (time === null ? '?' : String(time - started));
    const handshake = lab.exec(lab.ns.server, 'wg', ['show', `cnps${id.replace(/-/g, '').slice(0, 10)}`, 'latest-handshakes']).trim().split(/\s+/)[1];
    return [
      `open ${at(openedAt)}`,
      `configured ${at(loggedAt(agent, 'tunnel configured', t.prn))}`,
      `device up ${at(loggedAt(agent, 'tunnel interface up', t.prn))}`,
      `server up ${at(loggedAt(canopy.server, 'tunnel data plane up', id))}`,
      `handshake ${at(Number(handshake) * 1000)}`,
      `first byte ${firstByteMs}`,
    ].join(', ');
  };

  const firstByte = (since: number, t: Tunnel) =>
    JSON.parse(lab.exec(lab.ns.operator, process.execPath, [path.join(here, 'first-byte.mjs'), t.server_proxy_ip_address, String(t.server_proxy_port), String(since)]).trim()).ms as number;

  // 1. Throughput.
  if (PARTS.includes('throughput')) {
    const { tunnel } = await openTunnel(8022);
    // A first full transfer proves the path is up (and warms it) before timing.
    for (let attempt = 0; ; attempt++) {
      try {
        send(lab.ns.server, tunnel.device_proxy_ip_address, tunnel.device_proxy_port);
        break;
      } catch (error) {
        // The server brings the interface up within a second of the tunnel opening.
        if (attempt > 30) throw error;
        await sleep(500);
      }
  }
  const direct: number[] = [];
  const through: number[] = [];
  const operator: number[] = [];
  const wireguardOnly: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    direct.push(send(lab.ns.server, lab.deviceIp, 5001));
    through.push(send(lab.ns.server, tunnel.device_proxy_ip_address, tunnel.device_proxy_port));
    operator.push(send(lab.ns.operator, tunnel.server_proxy_ip_address, tunnel.server_proxy_port));
    wireguardOnly.push(send(lab.ns.server, tunnel.device_proxy_ip_address, 5002));
  }
  const mtus = ['server', 'device'].map((side) => {
    const ns = side === 'server' ? lab.ns.server : lab.ns.device;
    const line = lab.exec(ns, 'ip', ['-o', 'link', 'show']).split('\n').find((l) => /: cnp[sy]/.test(l)) ?? '';
    return `${side} ${/mtu (\d+)/.exec(line)?.[1] ?? '?'}`;
  });
  await admin('PATCH', `/tunnels/${tunnel.prn}`, { state: 'closed' });
  const d = median(direct);
  const w = median(through);
  const o = median(operator);
  console.log(`throughput, ${MEGABYTES} MB x ${ROUNDS}, median (Mbit/s):`);
  console.log(`  direct TCP server->device (baseline) ${d.toFixed(0)}`);
  console.log(`  through the tunnel server->device    ${w.toFixed(0)}  ratio ${(w / d).toFixed(3)} (target >= 0.40)`);
  console.log(`  operator -> server proxy -> device   ${o.toFixed(0)}  ratio ${(o / d).toFixed(3)}`);
  const g = median(wireguardOnly);
  console.log(`  WireGuard only (no forwarder)        ${g.toFixed(0)}  ratio ${(g / d).toFixed(3)}  (interface MTU: ${mtus.join(', ')})`);
  }

  // 2. POST /tunnels to first byte, agent polling every 10 s.
  if (PARTS.includes('first-byte')) {
    await sleep(2000);
    const times: number[] = [];
    const traces: string[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const { tunnel: t, started, openedAt } = await openTunnel(22);
      const ms = firstByte(started, t);
      times.push(ms);
      // firstByte blocks this process: let the logs written meanwhile arrive before reading them.
      await sleep(300);
      traces.push(trace(t, started, openedAt, ms));
      await admin('PATCH', `/tunnels/${t.prn}`, { state: 'closed' });
      // A random pause, so the request lands at a random point of the agent's 10 s poll cycle.
      await sleep(1000 + Math.random() * 10_000);
  }
  console.log(`POST /tunnels -> first byte, poll 10 s, ${SAMPLES} samples (ms): p50 ${percentile(times, 50)}  p95 ${percentile(times, 95)}  all ${times.join(' ')}`);
  console.log('  where the time went (ms after POST /tunnels; handshake at 1 s resolution):');
  for (const line of traces) console.log(`    ${line}`);
  console.log('  baseline: the poll interval alone gives a uniform wait of 0-10 s (p50 5000, p95 9500)');
  }
} finally {
  // The server's and the agent's logs, for finding where a slow figure's time went.
  if (process.env.BENCH_TUNNEL_LOG) fs.writeFileSync(process.env.BENCH_TUNNEL_LOG, `server:\n${lab.output(canopyServer)}\nagent:\n${lab.output(agentProcess)}\n`);
  lab.destroy();
  fs.rmSync(work, { recursive: true, force: true });
}
