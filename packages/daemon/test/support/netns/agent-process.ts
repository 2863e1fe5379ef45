/**
 * The daemon's tunnel agent as its own process, for running inside the device's network
 * namespace (`ip netns exec`): the real agent (createTunnelAgent) with the real WireGuard
 * interface, over the SDK's mutual-TLS device transport. Settings come as one JSON argument.
 * Reads `close <prn>` lines on stdin (what `canopy-daemon tunnels close` does) and answers
 * `closed <prn>`; logs JSON lines on stdout.
 */
import fs from 'node:fs';
import readline from 'node:readline';
import { createDeviceTransport } from '@canopy/sdk/device';
import { createLogger } from '../../../src/log.ts';
import { createTunnelAgent, deviceApiRequestOver, wireguardTunnelInterface } from '../../../src/tunnels/index.ts';
import { checkTunnelConfig } from '../../../src/tunnels/agent.ts';

const settings = JSON.parse(process.argv[2]) as {
  deviceUrl: string;
  certFile: string;
  keyFile: string;
  caFile: string;
  stateDir: string;
  portRanges: string[];
  cidrBlocks: string[];
  pollSeconds: number;
  shell?: boolean;
};
const config = {
  remote_access_tunnels: { enabled: true, port_ranges: settings.portRanges, cidr_blocks: settings.cidrBlocks, shell: settings.shell ?? true },
  tunnel_poll_interval: settings.pollSeconds,
  state_dir: settings.stateDir,
};
const log = createLogger({ level: 'debug', write: (line) => process.stdout.write(line.endsWith("\n") ? line : `${line}\n`) });
const transport = createDeviceTransport({
  baseUrl: settings.deviceUrl,
  certPem: fs.readFileSync(settings.certFile, 'utf8'),
  keyPem: fs.readFileSync(settings.keyFile, 'utf8'),
  caPem: fs.readFileSync(settings.caFile, 'utf8'),
});
const agent = createTunnelAgent({
  config,
  request: deviceApiRequestOver(transport),
  log,
  iface: wireguardTunnelInterface({ log, portRanges: checkTunnelConfig(config), shell: config.remote_access_tunnels.shell }),
});
await agent.start();
process.stdout.write('{"msg":"agent started"}\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, prn] = line.trim().split(/\s+/);
  if (command !== 'close' || !prn) return;
  agent.close(prn).then(
    () => process.stdout.write(`{"msg":"closed ${prn}"}\n`),
    (error) => process.stdout.write(`${JSON.stringify({ msg: 'close failed', error: (error as Error).message })}\n`),
  );
});
