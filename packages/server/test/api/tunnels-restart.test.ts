import { describe, expect, it } from 'vitest';
import { deviceEnrollment } from '../support/device-json-client';
import { useTestServer } from '../support/server';
import { configureBody, deviceKeys, requestTunnel } from '../support/tunnels';

// The database lives on disk (PGlite) or on the PostgreSQL server, so it outlives a restart.
const t = useTestServer({}, { restartable: true });
// The device calls the real device API over mutual TLS, on whichever server is running.
const enroll = deviceEnrollment(t);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('tunnel expiry across a restart', () => {
  it('closes a tunnel that expired while the server was down, once it is back', async () => {
    const device = await enroll.device(t);
    // Long enough to configure it on a loaded machine, short enough to wait out.
    const tunnel = await requestTunnel(t, device.prn, { ttl: 5 });
    const opened = await device.api('POST', '/tunnels/configure', { tunnel_prn: tunnel.prn, ...configureBody(deviceKeys().publicKey) });
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
    // The same device certificate authenticates against the restarted server's device API.
    const other = await requestTunnel(t, device.prn);
    const reopened = await device.api('POST', '/tunnels/configure', { tunnel_prn: other.prn, ...configureBody(deviceKeys().publicKey) });
    expect(reopened.status, JSON.stringify(reopened.body)).toBe(200);
    expect((await t.api('GET', `/tunnels/${other.prn}/wireguard`)).status).toBe(200);
  });
});
