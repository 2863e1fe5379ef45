import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server';
import { deviceWireguardConfig } from '../../src/tunnels/wireguard-config';
import { deviceApi, deviceEnrollment } from '../support/device-json-client';
import { expectFieldError } from '../support/resource-checks';
import { useTestServer } from '../support/server';
import { configureBody, deviceKeys, requestTunnel } from '../support/tunnels';
import { HAS_WG, NO_WG_REASON, parseWgConfig, wgPubkey, wgQuickStrip } from '../support/wireguard';

// Six tunnel ports, so the allocator's limits are reachable in a test.
const PORTS = { low: 40100, high: 40105 };
const t = useTestServer({ tunnelPortRanges: [PORTS], tunnelServerIpAddress: '198.51.100.7' });

// Device routes go through the real device API over mutual TLS, as enrolled devices: a CA
// registered with proof of possession, each device's certificate registered through the admin API.
const enroll = deviceEnrollment(t);
const enrolledDevice = () => enroll.device(t);

// The port range is small on purpose; each test starts with every port free.
afterEach(async () => {
  const open = await t.api('GET', `/tunnels?limit=100&search=${encodeURIComponent("state:'open'")}`);
  for (const tunnel of open.body.tunnels) await t.api('PATCH', `/tunnels/${tunnel.prn}`, { state: 'closed' });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function tunnelEvents(prn: string): Promise<string[]> {
  const res = await t.api('GET', `/events?type=tunnel&resource_prn=${encodeURIComponent(prn)}&order=asc&limit=100`);
  expect(res.status).toBe(200);
  return res.body.events.map((e: any) => e.data.type);
}

describe('tunnels: the whole flow', () => {
  it('two devices configure six tunnels at once: no port or address is handed out twice', async () => {
    const [a, b] = [await enrolledDevice(), await enrolledDevice()];
    const requested = [];
    for (const device of [a, b, a, b, a, b]) requested.push({ device, tunnel: await requestTunnel(t, device.prn) });
    expect(requested[0].tunnel).toMatchObject({ state: 'requested', device_prn: a.prn, device_tunnel_port: 22, server_tunnel_port: null, server_public_key: null });

    // Each device sees only its own tunnels.
    const listedA = await a.api('GET', '/tunnels?limit=100');
    expect(listedA.status).toBe(200);
    expect(listedA.body.tunnels.map((x: any) => x.prn).sort()).toEqual(requested.filter((r) => r.device === a).map((r) => r.tunnel.prn).sort());
    expect(listedA.body.next_page).toBeNull();

    const keys = requested.map(() => deviceKeys());
    const answers = await Promise.all(
      requested.map((r, i) =>
        i % 2 === 0
          ? r.device.api('POST', '/tunnels/configure', { tunnel_prn: r.tunnel.prn, ...configureBody(keys[i].publicKey) })
          : r.device.api('POST', `/tunnels/${r.tunnel.prn}/configure`, configureBody(keys[i].publicKey)),
      ),
    );
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const opened = answers.map((answer) => answer.body.data);
    for (const tunnel of opened) {
      expect(tunnel).toMatchObject({ state: 'open', server_tunnel_ip_address: '198.51.100.7', server_proxy_port: 8000, device_proxy_port: 2222 });
      expect(tunnel.server_tunnel_port).toBeGreaterThanOrEqual(PORTS.low);
      expect(tunnel.server_tunnel_port).toBeLessThanOrEqual(PORTS.high);
      expect(tunnel).not.toHaveProperty('server_private_key_sealed');
    }
    const ports = opened.map((x) => x.server_tunnel_port);
    expect(new Set(ports).size).toBe(6);
    const addresses = opened.flatMap((x) => [x.server_proxy_ip_address, x.device_proxy_ip_address]);
    expect(new Set(addresses).size).toBe(12);
    for (const address of addresses) expect(address).toMatch(/^10\.8\.0\.([1-9]|1[0-4])$/);
    expect(new Set(opened.map((x) => x.server_public_key)).size).toBe(6);

    // All six ports are taken: a seventh tunnel cannot open until one closes.
    const seventh = await requestTunnel(t, a.prn);
    const refused = await a.api('POST', '/tunnels/configure', { tunnel_prn: seventh.prn, ...configureBody(deviceKeys().publicKey) });
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].code).toBe('tunnel_ports_exhausted');
    const closed = await t.api('PATCH', `/tunnels/${opened[0].prn}`, { state: 'closed', prn: opened[0].prn });
    expect(closed.status).toBe(200);
    // The public API's shape: `{"data": tunnel}`, no `tunnel` wrapper.
    expect(Object.keys(closed.body)).toEqual(['data']);
    expect(closed.body.data).toMatchObject({ prn: opened[0].prn, state: 'closed', close_reason: 'closed_by_user' });
    const retried = await a.api('POST', '/tunnels/configure', { tunnel_prn: seventh.prn, ...configureBody(deviceKeys().publicKey) });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.data.server_tunnel_port).toBe(opened[0].server_tunnel_port);

    // The device closes one of its own.
    const byDevice = await b.api('PATCH', `/tunnels/${opened[1].prn}`, { state: 'closed', close_reason: 'session over' });
    expect(byDevice.status).toBe(200);
    expect(byDevice.body.data).toMatchObject({ state: 'closed', close_reason: 'session over' });
    const listedB = await b.api('GET', '/tunnels?limit=100');
    expect(listedB.body.tunnels.map((x: any) => x.prn)).not.toContain(opened[1].prn);

    expect(await tunnelEvents(opened[0].prn)).toEqual(['requested', 'opened', 'closed']);
    const openedEvent = (await t.api('GET', `/events?type=tunnel&subtype=opened&resource_prn=${encodeURIComponent(opened[2].prn)}`)).body.events[0];
    expect(openedEvent).toMatchObject({ type: 'tunnel', actor_prn: opened[2].device_prn, data: { type: 'opened', data: { state: 'open', device_prn: opened[2].device_prn } } });

    // Admin list and search.
    const open = await t.api('GET', `/tunnels?limit=100&search=${encodeURIComponent(`state:'open' and device_prn:'${a.prn}'`)}`);
    expect(open.status).toBe(200);
    expect(open.body.tunnels.every((x: any) => x.state === 'open' && x.device_prn === a.prn)).toBe(true);
    expect(open.body.tunnels.map((x: any) => x.prn)).toContain(retried.body.data.prn);
    const badSearch = await t.api('GET', `/tunnels?search=${encodeURIComponent("server_public_key:'x'")}`);
    expect(badSearch.status).toBe(400);
  });

  it.skipIf(!HAS_WG)(`answers wg-quick files whose keys correspond (${HAS_WG ? 'wg present' : NO_WG_REASON})`, async () => {
    const device = await enrolledDevice();
    const keys = deviceKeys();
    const requested = await requestTunnel(t, device.prn);
    const early = await t.api('GET', `/tunnels/${requested.prn}/wireguard`);
    expect(early.status).toBe(409);
    const opened = (await device.api('POST', '/tunnels/configure', { tunnel_prn: requested.prn, ...configureBody(keys.publicKey, { cidr_blocks: ['fd00:8::/126'] }) })).body.data;

    const res = await t.api('GET', `/tunnels/${opened.prn}/wireguard`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const server = parseWgConfig(res.body);
    expect(server.map((s) => s.name)).toEqual(['Interface', 'Peer']);
    const [iface, peer] = server.map((s) => s.entries);
    expect(wgPubkey(iface.PrivateKey)).toBe(opened.server_public_key);
    expect(iface).toMatchObject({ Address: `${opened.server_proxy_ip_address}/128`, ListenPort: String(opened.server_tunnel_port) });
    expect(peer).toEqual({ PublicKey: keys.publicKey, AllowedIPs: `${opened.device_proxy_ip_address}/128` });
    // What wg(8) itself reads once wg-quick's Address is stripped.
    expect(parseWgConfig(wgQuickStrip(res.body))[0].entries).not.toHaveProperty('Address');

    // The device's end, as documented: its private key matches what it sent, the peer is the server.
    const deviceSide = parseWgConfig(deviceWireguardConfig(opened, keys.privateKey)).map((s) => s.entries);
    expect(wgPubkey(deviceSide[0].PrivateKey)).toBe(opened.device_public_key);
    expect(deviceSide[1]).toEqual({
      PublicKey: opened.server_public_key,
      Endpoint: `198.51.100.7:${opened.server_tunnel_port}`,
      AllowedIPs: `${opened.server_proxy_ip_address}/128`,
      PersistentKeepalive: '25',
    });
    wgQuickStrip(deviceWireguardConfig(opened, keys.privateKey));

    // It holds the private key: an admin key only.
    const writeKey = await t.keyWithRole('write');
    expect((await t.api('GET', `/tunnels/${opened.prn}/wireguard`, undefined, { key: writeKey })).status).toBe(403);
  });
});

describe('tunnels: several server processes', () => {
  // PGlite is one connection inside one process; only PostgreSQL has two servers on one database.
  it.skipIf(!process.env.DATABASE_URL)('never hands one port or address to two tunnels opened through different servers (PostgreSQL only: set DATABASE_URL)', async () => {
    const second = await startServer({ ...t.config, adminPort: 0 }, { workers: false });
    try {
      const requested = [];
      for (let i = 0; i < 6; i++) {
        const device = await enrolledDevice();
        requested.push({ device, tunnel: await requestTunnel(t, device.prn) });
      }
      // Every other device calls the second server's own device API (its own port, same database).
      const answers = await Promise.all(
        requested.map((r, i) =>
          (i % 2 === 0 ? r.device.api : r.device.via(second))('POST', '/tunnels/configure', { tunnel_prn: r.tunnel.prn, ...configureBody(deviceKeys().publicKey) }),
        ),
      );
      for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const opened = answers.map((a) => a.body.data);
      expect(new Set(opened.map((x) => x.server_tunnel_port)).size).toBe(6);
      expect(new Set(opened.flatMap((x) => [x.server_proxy_ip_address, x.device_proxy_ip_address])).size).toBe(12);
    } finally {
      await second.close();
    }
  });
});

describe('tunnels: bad input and wrong states', () => {
  it('refuses bad admin input', async () => {
    const device = await enrolledDevice();
    expectFieldError(await t.api('POST', '/tunnels', { device_prn: device.prn, device_tunnel_port: 0 }), 'device_tunnel_port', 'out_of_range');
    expectFieldError(await t.api('POST', '/tunnels', { device_prn: device.prn, device_tunnel_port: 22, ttl: 0 }), 'ttl', 'out_of_range');
    expectFieldError(await t.api('POST', '/tunnels', { device_prn: device.prn, device_tunnel_port: 22, ttl: 3601 }), 'ttl', 'out_of_range');
    expectFieldError(await t.api('POST', '/tunnels', { device_prn: device.prn, device_tunnel_port: 22, cidr_block_allowlist: ['10.0.0.0/8', '300.1.1.1/32'] }), 'cidr_block_allowlist', 'invalid_cidr');
    expectFieldError(await t.api('POST', '/tunnels', { device_tunnel_port: 22 }), 'device_prn', 'required');
    const other = await t.createOrganization();
    const theirDevice = (await other.api('POST', '/products', { name: 'p' })).body.product.prn;
    const theirDevicePrn = (await other.api('POST', '/devices', { identifier: 'x', product_prn: theirDevice })).body.device.prn;
    expectFieldError(await t.api('POST', '/tunnels', { device_prn: theirDevicePrn, device_tunnel_port: 22 }), 'device_prn', 'not_found');

    const tunnel = await requestTunnel(t, device.prn, { cidr_block_allowlist: ['203.0.113.9/24'], ttl: 600 });
    expect(tunnel.cidr_block_allowlist).toEqual(['203.0.113.0/24']);
    expectFieldError(await t.api('PATCH', `/tunnels/${tunnel.prn}`, { state: 'open' }), 'state', 'invalid_transition');
    expectFieldError(await t.api('PATCH', `/tunnels/${tunnel.prn}`, { state: 'requested' }), 'state', 'invalid_transition');
    expectFieldError(await t.api('PATCH', `/tunnels/${tunnel.prn}`, { ttl: 3601 }), 'ttl', 'out_of_range');
    // Another organization cannot see or touch it.
    expect((await other.api('GET', `/tunnels/${tunnel.prn}`)).status).toBe(404);
    expect((await other.api('PATCH', `/tunnels/${tunnel.prn}`, { state: 'closed' })).status).toBe(404);
    expect((await other.api('GET', '/tunnels?limit=100')).body.tunnels).toEqual([]);

    const extended = await t.api('PATCH', `/tunnels/${tunnel.prn}`, { ttl: 3600 });
    expect(extended.status).toBe(200);
    expect(Date.parse(extended.body.data.expires_at)).toBeGreaterThan(Date.parse(tunnel.expires_at));
    await t.api('PATCH', `/tunnels/${tunnel.prn}`, { state: 'closed' });
    const again = await t.api('PATCH', `/tunnels/${tunnel.prn}`, { state: 'closed' });
    expect(again.status).toBe(200);
    const late = await t.api('PATCH', `/tunnels/${tunnel.prn}`, { ttl: 60 });
    expect(late.status).toBe(409);
    expect(late.body.errors[0]).toMatchObject({ code: 'invalid_state_transition', context: { from: 'closed' } });
    expect(await tunnelEvents(tunnel.prn)).toEqual(['requested', 'closed']);
  });

  it('refuses bad configure input, naming each field', async () => {
    const device = await enrolledDevice();
    const tunnel = await requestTunnel(t, device.prn);
    const key = deviceKeys().publicKey;
    const configure = (body: Record<string, unknown>) => device.api('POST', '/tunnels/configure', { tunnel_prn: tunnel.prn, ...configureBody(key), ...body });
    expectFieldError(await configure({ cidr_blocks: ['10.0.0.1/32'] }), 'cidr_blocks', 'too_few_addresses');
    expectFieldError(await configure({ cidr_blocks: ['10.0.0.1/32', '10.0.0.1/32'] }), 'cidr_blocks', 'too_few_addresses');
    expectFieldError(await configure({ cidr_blocks: ['10.0.0.0/32', '10.0.0.1/32'].slice(0, 1).concat('10.0.0.0/33') }), 'cidr_blocks', 'invalid_cidr');
    expectFieldError(await configure({ cidr_blocks: ['gateway'] }), 'cidr_blocks', 'invalid_cidr');
    for (const bad of ['0-10', '70000', '9-3', 'ssh', '1-2-3']) expectFieldError(await configure({ port_ranges: [bad] }), 'port_ranges', 'invalid_port_range');
    for (const bad of ['abc', Buffer.alloc(31).toString('base64'), Buffer.alloc(33).toString('base64'), `${key.slice(0, 43)}`]) {
      expectFieldError(await configure({ device_public_key: bad }), 'device_public_key', 'invalid_key');
    }
    expectFieldError(await configure({ device_proxy_port: 65536 }), 'device_proxy_port', 'out_of_range');
    const both = await configure({ cidr_blocks: ['10.0.0.1/32'], device_public_key: 'x' });
    expect(both.body.errors.map((e: any) => e.context.field).sort()).toEqual(['cidr_blocks', 'device_public_key']);
    // Nothing above changed the tunnel.
    expect((await t.api('GET', `/tunnels/${tunnel.prn}`)).body.tunnel.state).toBe('requested');

    // A /31 and a /127 hold two usable addresses each; IPv6 works.
    expect((await configure({ cidr_blocks: ['192.0.2.0/31'] })).status).toBe(200);
    const twice = await configure({});
    expect(twice.status).toBe(409);
    expect(twice.body.errors[0]).toMatchObject({ code: 'invalid_state_transition', context: { from: 'open', to: 'open' } });
    expectFieldError(await device.api('PATCH', `/tunnels/${tunnel.prn}`, { state: 'open' }), 'state', 'invalid_transition');
    expectFieldError(await device.api('POST', `/tunnels/${tunnel.prn}/configure`, { tunnel_prn: 'prn:1:x', ...configureBody(key) }), 'tunnel_prn', 'mismatch');
  });

  it('hides a tunnel of another device or organization behind a 404', async () => {
    const [mine, theirs] = [await enrolledDevice(), await enrolledDevice()];
    const tunnel = await requestTunnel(t, theirs.prn);
    const key = deviceKeys().publicKey;
    const configured = await mine.api('POST', '/tunnels/configure', { tunnel_prn: tunnel.prn, ...configureBody(key) });
    expect(configured.status).toBe(404);
    expect((await mine.api('PATCH', `/tunnels/${tunnel.prn}`, { state: 'closed' })).status).toBe(404);
    expect((await mine.api('GET', '/tunnels')).body.tunnels).toEqual([]);

    const other = await t.createOrganization();
    // A device of another organization, enrolled there with that organization's own CA.
    const foreignDevice = await enroll.device(other);
    expect((await foreignDevice.api('POST', '/tunnels/configure', { tunnel_prn: tunnel.prn, ...configureBody(key) })).status).toBe(404);
    expect((await foreignDevice.api('POST', `/tunnels/${tunnel.prn}/configure`, configureBody(key))).status).toBe(404);
    expect((await foreignDevice.api('PATCH', `/tunnels/${tunnel.prn}`, { state: 'closed' })).status).toBe(404);
    // A request with no client certificate at all.
    const nobody = deviceApi(t, null);
    expect((await nobody('GET', '/tunnels')).status).toBe(401);
    expect((await nobody('POST', '/tunnels/configure', { tunnel_prn: tunnel.prn, ...configureBody(key) })).status).toBe(401);
    expect((await t.api('GET', `/tunnels/${tunnel.prn}`)).body.tunnel.state).toBe('requested');
  });
});

/** Polls until the tunnel is closed or `ms` have passed, and answers it. */
async function closedWithin(prn: string, ms: number): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const tunnel = (await t.api('GET', `/tunnels/${prn}`)).body.tunnel;
    if (tunnel.state === 'closed' || Date.now() > deadline) return tunnel;
    await sleep(100);
  }
}

const untilPast = (expiresAt: string) => Math.max(0, Date.parse(expiresAt) - Date.now());

describe('tunnels: expiry', () => {
  it('closes a tunnel at expires_at, and a ttl extension moves the expiry', async () => {
    const device = await enrolledDevice();
    const short = await requestTunnel(t, device.prn, { ttl: 3 });
    const opened = await device.api('POST', '/tunnels/configure', { tunnel_prn: short.prn, ...configureBody(deviceKeys().publicKey, { cidr_blocks: ['172.16.9.0/30'] }) });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const moved = await requestTunnel(t, device.prn, { ttl: 1 });
    const extended = await t.api('PATCH', `/tunnels/${moved.prn}`, { ttl: 8 });
    expect(extended.status).toBe(200);

    // The worker polls every 500 ms; allow for a loaded machine.
    const expired = await closedWithin(short.prn, untilPast(short.expires_at) + 3000);
    expect(expired).toMatchObject({ state: 'closed', close_reason: 'expired' });
    expect(Date.parse(expired.updated_at)).toBeGreaterThanOrEqual(Date.parse(short.expires_at));
    expect(await tunnelEvents(short.prn)).toEqual(['requested', 'opened', 'expired']);
    const late = await device.api('POST', '/tunnels/configure', { tunnel_prn: short.prn, ...configureBody(deviceKeys().publicKey) });
    expect(late.status).toBe(409);

    // Its original second passed long ago; the extension holds it open until the new expires_at.
    expect(Date.now()).toBeGreaterThan(Date.parse(moved.expires_at) + 1000);
    expect((await t.api('GET', `/tunnels/${moved.prn}`)).body.tunnel.state).toBe('requested');
    const movedExpired = await closedWithin(moved.prn, untilPast(extended.body.data.expires_at) + 3000);
    expect(movedExpired).toMatchObject({ state: 'closed', close_reason: 'expired' });
    expect((await device.api('GET', '/tunnels')).body.tunnels).toEqual([]);
  });
});
