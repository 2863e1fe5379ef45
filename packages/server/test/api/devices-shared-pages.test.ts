/**
 * GET /devices without search: requests of the same page in one event-loop turn share one query
 * and its answer (read-path/owned-json.ts). Pages of another organization, order, cursor or size must
 * stay their own, and every turn reads the rows again: a page read the same as last time may be
 * answered with last time's answer, never a changed one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_JSON } from '../../src/devices/routes';
import { listOwnedJson } from '../../src/read-path/owned-json';
import { startTestServer, type Api, type TestServer } from '../support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

async function devicesIn(api: Api, prefix: string, count: number) {
  const product = (await api('POST', '/products', { name: `shared-${prefix}` })).body.product;
  const devices = [];
  for (let i = 0; i < count; i++) devices.push((await api('POST', '/devices', { identifier: `${prefix}-${i}`, product_prn: product.prn })).body.device);
  return devices as { prn: string; identifier: string }[];
}

const identifiers = (text: string) => (JSON.parse(text).devices as { identifier: string }[]).map((d) => d.identifier);
const noSearch = () => undefined;

describe('device list pages shared within a turn', () => {
  it('gives requests of the same page one answer, and every other page its own', async () => {
    const other = await t.createOrganization();
    await devicesIn(t.api, 'mine', 3);
    await devicesIn(other.api, 'theirs', 2);
    const db = t.server.platform.db;
    const list = (organizationId: string, query: object) => listOwnedJson(db, DEVICE_JSON, organizationId, query, noSearch);
    const [first, same, smaller, ascending, theirs] = await Promise.all([
      list(t.organizationId, { limit: 2 }),
      list(t.organizationId, { limit: 2 }),
      list(t.organizationId, { limit: 1 }),
      list(t.organizationId, { limit: 2, order: 'asc' }),
      list(other.organizationId, { limit: 2 }),
    ]);
    expect(same).toBe(first);
    const page = (p: { items: string[]; nextPage: string | null }) => `{"devices":[${p.items.join(',')}],"next_page":${JSON.stringify(p.nextPage)}}`;
    expect(identifiers(page(first))).toEqual(['mine-2', 'mine-1']);
    expect(identifiers(page(smaller))).toEqual(['mine-2']);
    expect(identifiers(page(ascending))).toEqual(['mine-0', 'mine-1']);
    expect(identifiers(page(theirs))).toEqual(['theirs-1', 'theirs-0']);
    const [next, nextAgain] = await Promise.all([list(t.organizationId, { limit: 2, page: first.nextPage! }), list(t.organizationId, { limit: 2, page: first.nextPage! })]);
    expect(nextAgain).toBe(next);
    expect(identifiers(page(next))).toEqual(['mine-0']);
  });

  it('answers concurrent requests over HTTP each with its own organization\'s page', async () => {
    const other = await t.createOrganization();
    const theirs = await devicesIn(other.api, 'http-theirs', 2);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? t.api : other.api)('GET', '/devices?limit=100')));
    const mine = (await t.api('GET', '/devices?limit=100')).body;
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(i % 2 === 0 ? mine : { devices: [...theirs].reverse(), next_page: null });
    });
  });

  it('answers a page that reads the same as last time with the same answer, and a changed page anew', async () => {
    const [device] = await devicesIn(t.api, 'again', 1);
    const list = () => listOwnedJson(t.server.platform.db, DEVICE_JSON, t.organizationId, { limit: 1 }, noSearch);
    const first = await list();
    const again = await list();
    expect(again).toBe(first);
    await t.api('PATCH', `/devices/${device.prn}`, { description: 'changed' });
    const changed = await list();
    expect(changed).not.toBe(first);
    expect(JSON.parse(changed.items[0]).description).toBe('changed');
    expect(await list()).toBe(changed);
    const [added] = await devicesIn(t.api, 'again-added', 1);
    expect(JSON.parse((await list()).items[0]).prn).toBe(added.prn);
  });

  it('reads the database again in the next turn: a change is seen at once', async () => {
    const before = (await t.api('GET', '/devices?limit=1')).body.devices;
    const [created] = await devicesIn(t.api, 'fresh', 1);
    const [a, b] = await Promise.all([t.api('GET', '/devices?limit=1'), t.api('GET', '/devices?limit=1')]);
    expect(before[0]?.prn).not.toBe(created.prn);
    expect([a.body.devices[0].prn, b.body.devices[0].prn]).toEqual([created.prn, created.prn]);
  });
});
