/**
 * `GET /tunnels/{prn}` says whether the answering server carries tunnel traffic
 * (`server_data_plane`), and the data plane's machine check says why it cannot. The traffic
 * itself is tested in network namespaces: packages/daemon/test/tunnels/data-plane.test.ts.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createDevice, createProduct } from '../support/device-fleet';
import { useTestServer } from '../support/server';

const t = useTestServer();
const SERVER_PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const isRoot = process.getuid?.() === 0;

describe('tunnels: server_data_plane', () => {
  it('shows the data plane disabled by CANOPY_TUNNEL_DATA_PLANE=off, and only on a tunnel of the caller', async () => {
    const product = await createProduct(t.api, 'data-plane-state');
    const device = await createDevice(t.api, product, 'data-plane-state-1');
    const created = await t.api('POST', '/tunnels', { device_prn: device.prn, device_tunnel_port: 22 });
    expect(created.status).toBe(201);
    expect(created.body.tunnel.server_data_plane).toBeUndefined();
    const got = await t.api('GET', `/tunnels/${created.body.tunnel.prn}`);
    expect(got.status).toBe(200);
    expect(got.body.tunnel.server_data_plane).toEqual({ status: 'disabled', reason: 'CANOPY_TUNNEL_DATA_PLANE=off' });
    const other = await t.createOrganization();
    expect((await other.api('GET', `/tunnels/${created.body.tunnel.prn}`)).status).toBe(404);
  });

  it.skipIf(!isRoot)('a server process that is not root reports not_root (skipped unless root: it drops to nobody)', () => {
    const out = execFileSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--import', 'tsx', '-e', "import('./src/tunnels/data-plane/support.ts').then((m) => console.log(JSON.stringify(m.dataPlaneSupport())))"],
      { cwd: SERVER_PACKAGE },
    ).toString();
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({ status: 'unavailable', reason: 'not_root' });
  });
});
