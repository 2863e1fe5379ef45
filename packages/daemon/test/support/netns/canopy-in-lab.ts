/**
 * Canopy in a lab (lab.ts): the real server process in the `server` namespace (PGlite on disk,
 * the data plane on), its admin API reached over a Unix socket relay, one enrolled device whose
 * certificate files the agent reads, echo services on the device's 127.0.0.1 at `echoPorts`,
 * and `startAgent()` for the daemon's tunnel agent process (agent-process.ts) in the `device`
 * namespace. Used by the data-plane test and the tunnel benchmark.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deviceEnrollment, type EnrolledDevice } from '../../../../server/test/support/device-json-client.ts';
import type { Api } from '../../../../server/test/support/server.ts';
import { adminApiOverSocket } from './admin-over-socket.ts';
import { waitForLine, type Lab } from './lab.ts';

export const NETNS_SUPPORT = path.dirname(fileURLToPath(import.meta.url));
const SERVER_PACKAGE = path.resolve(NETNS_SUPPORT, '../../../../server');
const DAEMON_PACKAGE = path.resolve(NETNS_SUPPORT, '../../..');

export interface CanopyInLab {
  admin: Api;
  device: EnrolledDevice;
  server: ChildProcess;
  /** The admin API's Unix socket relay (relay.mjs), for a test that needs its own client (a browser). */
  socketPath: string;
  startAgent(): Promise<ChildProcess>;
}

export async function startCanopyInLab(lab: Lab, work: string, options: { pollSeconds: number; portRanges: string[]; echoPorts: number[]; consoleDir?: string; shell?: boolean; env?: Record<string, string> }): Promise<CanopyInLab> {
  const apiKey = `cnpy_netns_${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
  const dataDir = path.join(work, 'server');
  const server = lab.spawn(lab.ns.server, process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_PACKAGE,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CANOPY_DATA_DIR: dataDir,
      // Inside its own namespace: reachable from the device and operator veths only.
      CANOPY_HOST: '0.0.0.0',
      CANOPY_ADMIN_PORT: '0',
      CANOPY_DEVICE_PORT: '0',
      CANOPY_SITE_DIR: path.join(work, 'no-site'),
      CANOPY_BOOTSTRAP_API_KEY: apiKey,
      CANOPY_DEVICE_HOSTNAMES: lab.serverIp,
      CANOPY_TUNNEL_SERVER_IP: lab.serverIp,
      CANOPY_TUNNEL_PORTS: '51820-51829',
      CANOPY_LOG_LEVEL: process.env.CANOPY_LAB_LOG_LEVEL ?? 'info',
      ...(options.consoleDir ? { CANOPY_CONSOLE_DIR: options.consoleDir } : {}),
      ...options.env,
    },
  });
  const deviceLine = waitForLine(server, (line) => line.includes('canopy device API listening'), 280_000);
  const adminLine = await waitForLine(server, (line) => line.includes('canopy admin API listening'), 280_000);
  const adminPort = new URL(JSON.parse(adminLine).adminUrl).port;
  const devicePort = new URL(JSON.parse(await deviceLine).deviceUrl).port;

  const socketPath = path.join(work, 'admin.sock');
  const relay = lab.spawn(lab.ns.server, process.execPath, [path.join(NETNS_SUPPORT, 'relay.mjs'), socketPath, adminPort]);
  await waitForLine(relay, (line) => line === 'ready');
  const admin = adminApiOverSocket(socketPath, apiKey);

  const deviceServerCaPem = fs.readFileSync(path.join(dataDir, 'device-api', 'ca.pem'), 'utf8');
  const deviceUrl = `https://${lab.serverIp}:${devicePort}`;
  const device = await deviceEnrollment({ deviceUrl, deviceServerCaPem }).device({ api: admin, organizationId: 'lab' }, `netns-device-${Date.now()}`);
  for (const [name, text] of [['device.pem', device.certificate.certPem], ['device.key', device.certificate.keyPem], ['server-ca.pem', deviceServerCaPem]]) {
    fs.writeFileSync(path.join(work, name), text, { mode: 0o600 });
  }

  if (options.echoPorts.length > 0) {
    const echo = lab.spawn(lab.ns.device, process.execPath, [path.join(NETNS_SUPPORT, 'echo.mjs'), ...options.echoPorts.map(String)]);
    await waitForLine(echo, (line) => line === 'ready');
  }

  const agentSettings = JSON.stringify({
    deviceUrl,
    certFile: path.join(work, 'device.pem'),
    keyFile: path.join(work, 'device.key'),
    caFile: path.join(work, 'server-ca.pem'),
    stateDir: path.join(work, 'device-state'),
    portRanges: options.portRanges,
    cidrBlocks: [lab.tunnelBlock],
    pollSeconds: options.pollSeconds,
    shell: options.shell ?? true,
  });
  return {
    admin,
    device,
    server,
    socketPath,
    async startAgent() {
      const agent = lab.spawn(lab.ns.device, process.execPath, ['--import', 'tsx', path.join(NETNS_SUPPORT, 'agent-process.ts'), agentSettings], { cwd: DAEMON_PACKAGE });
      await waitForLine(agent, (line) => line.includes('agent started'), 60_000);
      return agent;
    },
  };
}
