/** `canopy firmwares ...` and `canopy deployments ...` (the legacy API) against a real server. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { firmwareKey } from '../../server/test/support/fwup';
import { archiveFor } from '../../server/test/support/legacy';
import { canopy, canopyOk } from './support/run-canopy';
import { useCliEnv, useTestServer } from './support/server';
import { temporaryConfigDir } from './support/temporary-dirs';

const server = useTestServer();
const env = useCliEnv(server);
const ok = canopyOk(env);

describe('legacy firmware and deployments', () => {
  it('uploads on both paths, lists, gets, deploys, updates and deletes', async () => {
    const signingKey = firmwareKey();
    expect((await server.api('POST', '/signing_keys', { name: 'fwup-cli', value: signingKey.value })).status).toBe(201);
    const productPrn = (await server.api('POST', '/products', { name: 'cli-gateway' })).body.product.prn;
    const dir = temporaryConfigDir();
    const first = archiveFor({ signingKey }, 'cli-gateway', '1.0.0');
    const second = archiveFor({ signingKey }, 'cli-gateway', '1.1.0');
    fs.writeFileSync(path.join(dir, 'first.fw'), first.bytes);
    fs.writeFileSync(path.join(dir, 'second.fw'), second.bytes);

    const byName = (await ok(['firmwares', 'upload', '--path', path.join(dir, 'first.fw'), '--org-name', 'default', '--product-name', 'cli-gateway', '--ttl', '3600'])).firmware;
    expect(byName).toMatchObject({ uuid: first.uuid, version: '1.0.0', ttl: 3600 });
    const byPrn = (await ok(['firmwares', 'upload', '--path', path.join(dir, 'second.fw'), '--product-prn', productPrn])).firmware;
    expect(byPrn).toMatchObject({ uuid: second.uuid, version: '1.1.0' });
    const usage = await canopy(['firmwares', 'upload', '--path', path.join(dir, 'second.fw'), '--org-name', 'default'], env);
    expect(usage.code).not.toBe(0);

    expect((await ok(['firmwares', 'list', '--product-prn', productPrn])).firmwares.map((f: any) => f.uuid)).toEqual([second.uuid, first.uuid]);
    expect((await ok(['firmwares', 'get', first.uuid, '--expand', 'url'])).firmware.url).toMatch(/^http/);

    const deployment = (await ok(['deployments', 'create', '--name', 'beta', '--product-prn', productPrn, '--firmware-uuid', second.uuid, '--conditions', '{"version": "~> 1.0", "tags": ["beta"]}', '--is-active', 'true'])).deployment;
    expect(deployment).toMatchObject({ name: 'beta', firmware_uuid: second.uuid, is_active: true, state: 'on', conditions: { version: '~> 1.0', tags: ['beta'] } });
    expect((await ok(['deployments', 'get', deployment.prn])).deployment.name).toBe('beta');
    expect((await ok(['deployments', 'list', '--product-prn', productPrn])).deployments.map((d: any) => d.prn)).toEqual([deployment.prn]);
    expect((await ok(['deployments', 'update', deployment.prn, '--state', 'off'])).deployment).toMatchObject({ is_active: false, state: 'off' });

    const inUse = await canopy(['firmwares', 'delete', second.uuid], env);
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(/409/);
    expect((await canopy(['deployments', 'delete', deployment.prn], env)).code).toBe(0);
    expect((await canopy(['firmwares', 'delete', second.uuid], env)).code).toBe(0);
    expect((await canopy(['firmwares', 'delete', byName.prn], env)).code).toBe(0);
    expect((await canopy(['firmwares', 'get', first.uuid], env)).code).toBe(1);
  });
});
