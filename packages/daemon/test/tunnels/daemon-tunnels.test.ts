/**
 * main.ts runs the tunnel agent beside the update loop: a canopy-daemon process with
 * remote_access_tunnels enabled configures a tunnel an operator requested, over its own mutual-TLS
 * client; disabled, a restart takes the tunnel it left down without asking the server.
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../server/test/support/server';
import { bundleDaemon, createFleet, DaemonProcess, enrollDevice, eventually, removeTemporaryDirs, writeConfig, type Fleet } from '../support/harness';

/** The daemon runs as root here: it must configure tunnels without creating interfaces on the host. */
const NO_DATA_PLANE = { CANOPY_DAEMON_TUNNEL_DATA_PLANE: 'off' };

let t: TestServer;
let fleet: Fleet;
beforeAll(async () => {
  bundleDaemon();
  t = await startTestServer({ tunnelPortRanges: [{ low: 40210, high: 40219 }], tunnelServerIpAddress: '198.51.100.7' });
  fleet = await createFleet(t.api, 'daemon-tunnels');
});
afterAll(async () => {
  await t?.close();
  removeTemporaryDirs();
});

it('the daemon process configures a requested tunnel beside its update loop, and a disabled restart takes it down', async () => {
  const device = await enrollDevice(t, fleet, fleet.cohortPrn, 'tunnel-gateway');
  const trusted = path.join(device.dir, 'release.pub.pem');
  fs.writeFileSync(trusted, generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }));
  const tunnels = { enabled: true, port_ranges: ['22'], cidr_blocks: ['10.250.0.0/16', '10.251.0.0/16'] };
  const requested = await t.api('POST', '/tunnels', { device_prn: device.prn, device_tunnel_port: 22 });
  expect(requested.status, JSON.stringify(requested.body)).toBe(201);
  const prn: string = requested.body.tunnel.prn;

  const daemon = DaemonProcess.start(writeConfig(t, device, [trusted], { remote_access_tunnels: tunnels, tunnel_poll_interval: 1 }), NO_DATA_PLANE);
  const tunnelDir = path.join(device.dir, 'state', 'tunnels');
  try {
    const open = await eventually(async () => {
      const tunnel = (await t.api('GET', `/tunnels/${prn}`)).body.tunnel;
      return tunnel.state === 'open' ? tunnel : null;
    }, 'the tunnel open');
    expect(open.device_public_key).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(fs.readdirSync(tunnelDir).filter((name) => name.endsWith('.conf'))).toHaveLength(1);
    // The update loop runs too.
    await daemon.waitFor((l) => l.msg === 'started', 'the start');
  } finally {
    await daemon.stop();
  }
  expect((await daemon.exited).code).toBe(0);

  // Disabled: the next start takes the leftover tunnel down.
  const off = DaemonProcess.start(writeConfig(t, device, [trusted], { remote_access_tunnels: { ...tunnels, enabled: false } }), NO_DATA_PLANE);
  try {
    await eventually(async () => fs.readdirSync(tunnelDir).length === 0, 'the leftover tunnel taken down', 30_000);
  } finally {
    await off.stop();
  }
});
