/**
 * Concurrent edits of one cohort's chain and concurrent phase claims, from many parallel
 * requests to one server and, on PostgreSQL, from two server processes sharing the database
 * (the second started in-process by startServer with the same DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countClaims } from '../../src/updates/phase-claims';
import { startServer, type RunningServer } from '../../src/server';
import { createFleet, type Fleet } from '../support/fleet';
import { expectValidChain } from '../support/release-chain';
import { startTestServer, type Api, type TestServer } from '../support/server';

const onPostgres = Boolean(process.env.DATABASE_URL);
let t: TestServer;
let fleet: Fleet;
let second: RunningServer | null = null;
/** Requests alternate between the two processes on PostgreSQL; PGlite has only one. */
let apis: Api[];

function client(url: string, key: string): Api {
  return async (method, path, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  };
}

beforeAll(async () => {
  t = await startTestServer();
  fleet = await createFleet(t.api);
  apis = [t.api];
  if (onPostgres) {
    second = await startServer({ ...t.config, adminPort: 0 }, { workers: false });
    apis.push(client(second.adminUrl, t.apiKey));
  }
}, 120_000);
afterAll(async () => {
  await second?.close();
  await t?.close();
});

const pick = <T>(items: T[], i: number) => items[i % items.length];

describe(`concurrent chain edits (${onPostgres ? 'two processes on PostgreSQL' : 'one process on PGlite'})`, () => {
  it('keeps the chain valid after every round of parallel creates, inserts, moves and deletes', async () => {
    const cohort = await fleet.cohort();
    const bundle = await fleet.bundle();
    const body = (fields: Record<string, unknown>) => ({ bundle_prn: bundle.prn, cohort_prn: cohort.prn, name: 'r', required: false, schedule_date: null, ...fields });
    let order = await expectValidChain(t.api, cohort.prn);
    for (let round = 0; round < 8; round++) {
      const requests = Array.from({ length: 12 }, (_, i) => {
        const api = pick(apis, i);
        const target = order.length ? order[(round * 7 + i * 3) % order.length] : undefined;
        switch (order.length < 3 ? 0 : i % 4) {
          case 0:
            return api('POST', '/releases', body({}));
          case 1:
            return api('POST', '/releases', body({ next_release_prn: target }));
          case 2:
            return api('PATCH', `/releases/${target}`, { previous_release_prn: pick(order, round + i) });
          default:
            return api('DELETE', `/releases/${target}`);
        }
      });
      const answers = await Promise.all(requests);
      // Every answer is a success or a clean refusal (a release deleted by a parallel request).
      for (const answer of answers) expect([200, 201, 204, 404, 409, 422]).toContain(answer.status);
      expect(answers.some((a) => a.status < 300)).toBe(true);
      order = await expectValidChain(t.api, cohort.prn);
    }
    expect(order.length).toBeGreaterThan(3);
  });
});

describe(`concurrent phase claims (${onPostgres ? 'two processes on PostgreSQL' : 'one process on PGlite'})`, () => {
  for (const [label, phaseValue, devices, expected] of [
    ['a device count', 25, 120, 25],
    ['a fraction of the cohort', 0.1, 150, 15],
  ] as const) {
    it(`never hands out more slots than ${label} allows`, async () => {
      const cohort = await fleet.cohort();
      const [b1, b2] = [await fleet.bundle(), await fleet.bundle()];
      const create = (bundlePrn: string, fields: Record<string, unknown>) =>
        t.api('POST', '/releases', { bundle_prn: bundlePrn, cohort_prn: cohort.prn, name: 'r', required: false, schedule_date: null, ...fields });
      const r1 = (await create(b1.prn, {})).body.release;
      const r2 = (await create(b2.prn, { phase_value: phaseValue })).body.release;
      const members = await fleet.devices(devices, cohort.id);
      const checks = await Promise.all(members.map((d, i) => pick(apis, i)('POST', `/devices/${d.prn}/update`, { release_prn: r1.prn })));
      expect(checks.every((c) => c.status === 200)).toBe(true);
      const winners = checks.filter((c) => c.body.source_prn === r2.prn).length;
      expect(winners).toBe(expected);
      expect(await countClaims(t.server.platform.db, r2.prn.split(':').pop())).toBe(expected);
      expect((await t.api('GET', `/releases/${r2.prn}`)).body.release.phase_claim_count).toBe(expected);
      // A second round changes nothing: claims are stable and the phase is full.
      const again = await Promise.all(members.map((d, i) => pick(apis, i + 1)('POST', `/devices/${d.prn}/update`, { release_prn: r1.prn })));
      expect(again.filter((c) => c.body.source_prn === r2.prn).length).toBe(expected);
    });
  }

  it.skipIf(!onPostgres)('runs against two processes (skipped without DATABASE_URL: PGlite is one in-process database)', () => {
    expect(apis).toHaveLength(2);
  });
});
