import { describe, expect, it } from 'vitest';
import { startDeviceApiStandIn } from '../support/device-api-stand-in';
import { useTestServer } from '../support/server';
import { configureBody, createTestDevice, deviceKeys, requestTunnel } from '../support/tunnels';

// The database lives on disk (PGlite) or on the PostgreSQL server, so it outlives a restart.
const t = useTestServer({}, { restartable: true });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('tunnel expiry across a restart', () => {
  it('closes a tunnel that expired while the server was down, once it is back', async () => {
    const device = await createTestDevice(t);
    // Long enough to configure it on a loaded machine, short enough to wait out.
    const tunnel = await requestTunnel(t, device, { ttl: 5 });
    // Device routes on the stand-in for the mTLS server until that lands on main.
    const devices = await startDeviceApiStandIn(t.server.platform);
    const opened = await devices.as(device)('POST', '/tunnels/configure', { tunnel_prn: tunnel.prn, ...configureBody(deviceKeys().publicKey) });
    await devices.close();
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);

    await t.server.close();
    // Down past expires_at: no process was there to run a timer.
    await sleep(Math.max(0, Date.parse(tunnel.expires_at) - Date.now()) + 500);
    await t.restart();

    let state = '';
    for (let i = 0; i < 40 && state !== 'closed'; i++) {
      state = (await t.api('GET', `/tunnels/${tunnel.prn}`)).body.tunnel.state;
      if (state !== 'closed') await sleep(100);
    }
    const after = (await t.api('GET', `/tunnels/${tunnel.prn}`)).body.tunnel;
    expect(after).toMatchObject({ state: 'closed', close_reason: 'expired', server_public_key: opened.body.data.server_public_key });
    const events = await t.api('GET', `/events?type=tunnel&resource_prn=${encodeURIComponent(tunnel.prn)}&order=asc`);
    expect(events.body.events.map((e: any) => e.data.type)).toEqual(['requested', 'opened', 'expired']);

    // The sealed server key still opens after the restart (the secret key lives in the data dir).
    const other = await requestTunnel(t, device);
    const again = await startDeviceApiStandIn(t.server.platform);
    const reopened = await again.as(device)('POST', '/tunnels/configure', { tunnel_prn: other.prn, ...configureBody(deviceKeys().publicKey) });
    await again.close();
    expect(reopened.status).toBe(200);
    expect((await t.api('GET', `/tunnels/${other.prn}/wireguard`)).status).toBe(200);
  });
});
