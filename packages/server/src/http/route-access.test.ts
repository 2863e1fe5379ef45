import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { recordRouteAccess } from './route-access';

const handler = async () => ({});

function appWithTable() {
  const app = Fastify();
  return { app, table: recordRouteAccess(app) };
}

describe('route access declarations', () => {
  it('refuses to register a route that declares no access: there is no default by method', async () => {
    for (const config of [undefined, {}, { keyKinds: ['current'] as const }]) {
      const { app } = appWithTable();
      expect(() => app.get('/gadgets', { config, handler })).toThrow(/must declare exactly one of/);
      await app.close();
    }
  });

  it('refuses a route that declares two kinds of access at once', async () => {
    const { app } = appWithTable();
    expect(() => app.delete('/gadgets/:id', { config: { public: true, role: 'admin' }, handler })).toThrow(/exactly one/);
    await app.close();
  });

  it("gives a route its counterpart's access, and refuses an unknown counterpart", async () => {
    const { app, table } = appWithTable();
    app.get('/gadgets', { config: { role: 'admin', keyKinds: ['current'] }, handler });
    app.get('/orgs/:org_name/gadgets', { config: { counterpart: 'GET /gadgets' }, handler });
    expect(() => app.post('/orgs/:org_name/gadgets', { config: { counterpart: 'POST /gadgets' }, handler })).toThrow(/counterpart POST \/gadgets is not registered/);
    await app.ready();
    const legacy = table().filter((entry) => entry.url === '/orgs/:org_name/gadgets');
    // The HEAD route Fastify adds beside the GET takes the same access.
    expect(legacy.map((entry) => entry.method).sort()).toEqual(['GET', 'HEAD']);
    for (const entry of legacy) expect(entry).toMatchObject({ access: { public: false, role: 'admin', keyKinds: ['current'] }, counterpart: 'GET /gadgets' });
    await app.close();
  });
});
