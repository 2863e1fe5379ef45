/**
 * GET /devices/{prn} looks devices up by id in one query per event-loop turn (read-path/turn-batch.ts).
 * Lookups that share a query must still each see only their own organization's device, a
 * missing one must stay 404 beside found ones, and nothing may be remembered between turns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_JSON } from '../../src/devices/routes';
import { findOwnedJson } from '../../src/read-path/owned-json';
import { startTestServer, type Api, type TestServer } from '../support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

async function deviceIn(api: Api, identifier: string) {
  const product = (await api('POST', '/products', { name: `batch-${identifier}` })).body.product;
  return (await api('POST', '/devices', { identifier, product_prn: product.prn })).body.device as { prn: string; identifier: string };
}

const idOf = (prn: string) => prn.split(':')[4];
const MISSING_ID = '7d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a09';

describe('device reads batched per event-loop turn', () => {
  it('answers each lookup of a shared query with its own organization\'s row only', async () => {
    const other = await t.createOrganization();
    const mine = [await deviceIn(t.api, 'batch-mine-1'), await deviceIn(t.api, 'batch-mine-2')];
    const theirs = await deviceIn(other.api, 'batch-theirs');
    const db = t.server.platform.db;
    // Started in one turn, so they share one query: their device's id under my organization's
    // prn finds its row there, which must not be answered to me.
    const [first, second, theirsAsMine, missing, theirsAsTheirs] = await Promise.all([
      findOwnedJson(db, DEVICE_JSON, t.organizationId, mine[0].prn),
      findOwnedJson(db, DEVICE_JSON, t.organizationId, mine[1].prn),
      findOwnedJson(db, DEVICE_JSON, t.organizationId, `prn:1:${t.organizationId}:device:${idOf(theirs.prn)}`),
      findOwnedJson(db, DEVICE_JSON, t.organizationId, `prn:1:${t.organizationId}:device:${MISSING_ID}`),
      findOwnedJson(db, DEVICE_JSON, other.organizationId, theirs.prn),
    ]);
    expect(JSON.parse(first!)).toEqual(mine[0]);
    expect(JSON.parse(second!)).toEqual(mine[1]);
    expect(theirsAsMine).toBeNull();
    expect(missing).toBeNull();
    expect(JSON.parse(theirsAsTheirs!)).toEqual(theirs);
  });

  it('answers concurrent requests over HTTP each with their own status and body', async () => {
    const other = await t.createOrganization();
    const mine = await deviceIn(t.api, 'batch-http-mine');
    const theirs = await deviceIn(other.api, 'batch-http-theirs');
    const requests = Array.from({ length: 30 }, (_, i) => {
      switch (i % 3) {
        case 0:
          return { api: t.api, prn: mine.prn, expected: { status: 200, device: mine } };
        case 1:
          return { api: t.api, prn: `prn:1:${t.organizationId}:device:${idOf(theirs.prn)}`, expected: { status: 404 } };
        default:
          return { api: other.api, prn: theirs.prn, expected: { status: 200, device: theirs } };
      }
    });
    const answers = await Promise.all(requests.map(({ api, prn }) => api('GET', `/devices/${prn}`)));
    answers.forEach((answer, i) => {
      const { expected } = requests[i];
      expect(answer.status).toBe(expected.status);
      if (expected.device) expect(answer.body.device).toEqual(expected.device);
    });
  });

  it('reads the database again in the next turn: a change is seen at once', async () => {
    const device = await deviceIn(t.api, 'batch-fresh');
    expect((await t.api('GET', `/devices/${device.prn}`)).body.device.description).toBeNull();
    await t.api('PATCH', `/devices/${device.prn}`, { description: 'changed' });
    const [a, b] = await Promise.all([t.api('GET', `/devices/${device.prn}`), t.api('GET', `/devices/${device.prn}`)]);
    expect([a.body.device.description, b.body.device.description]).toEqual(['changed', 'changed']);
    await t.api('DELETE', `/devices/${device.prn}`);
    expect((await t.api('GET', `/devices/${device.prn}`)).status).toBe(404);
  });
});
