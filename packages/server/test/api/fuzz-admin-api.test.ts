/**
 * Generated fuzzing of every admin API route, from the OpenAPI document the server serves:
 * valid-looking and hostile path parameters, query strings, headers and bodies (see
 * support/fuzz/). No answer may be a 5xx; every 4xx is the contract's error shape naming the
 * field; the server answers normally afterwards. A new route is fuzzed without touching this file.
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { inFuzzOrder, operationsOf, type Operation } from '../support/fuzz/operations';
import { FUZZ_SEED, fuzzOperations } from '../support/fuzz/run';
import type { PopulatedOrganization } from '../support/populated-organization';
import { populateEveryList, useFuzzServer } from '../support/fuzz/server';

const fuzz = useFuzzServer();

/**
 * Requests per operation: 133 admin operations (with the legacy API's, whose firmware uploads get
 * generated multipart forms) x 200 = 26,600; with the device file's, over 29,000 in all.
 */
const PER_OPERATION = Number(process.env.FUZZ_PER_OPERATION ?? 200);

describe('admin API under generated requests', () => {
  it('answers every fuzzed request without a 5xx, in the error shape, and stays healthy', async () => {
    const { t } = fuzz;
    const started = Date.now();
    const operations: Operation[] = operationsOf(t.server.admin.swagger());
    const mine: PopulatedOrganization = await populateEveryList(fuzz);
    const other = await t.createOrganization();
    // The fuzzer's own key: its prn is kept out of the pools so a fuzzed DELETE /api_keys/{prn} cannot end the run.
    const key = await t.api('POST', '/api_keys', { name: 'fuzzer', role: 'admin', kind: 'current' });
    const fuzzKeyPrn: string = key.body.api_key.prn;
    const prnsByType = new Map([...mine.prnsByType].map(([type, prns]) => [type, prns.filter((p) => p !== fuzzKeyPrn)]));
    prnsByType.set('token', [mine.shellToken]);
    // Legacy paths name rows by names, serials and uuids: the fuzzer aims at the populated ones.
    const context = { prnsByType, organizationIds: [t.organizationId, other.organizationId], namedValues: mine.legacy.values };
    const signing = { key: mine.legacy.signingKey, products: [{ name: mine.legacy.productName, prn: mine.legacy.productPrn }] };
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const setupSeconds = (Date.now() - started) / 1000;

    const report = await fuzzOperations({ baseUrl: t.url, agent }, inFuzzOrder(operations), context, PER_OPERATION, { apiKey: key.body.api_key.key, signing, concurrency: 6 });
    agent.destroy();

    const seconds = (Date.now() - started) / 1000;
    console.info(
      `admin fuzz: seed ${FUZZ_SEED}, ${operations.length} operations, ${report.requests} requests in ${seconds.toFixed(1)} s (setup ${setupSeconds.toFixed(1)} s); statuses ${JSON.stringify(Object.fromEntries([...report.byStatus].sort()))}`,
    );
    expect(report.breaches).toEqual([]);
    expect(report.requests).toBe(operations.length * PER_OPERATION);
    // The legacy uploads stored some archives (and answered the spec's 500 invalid_signature to others).
    const stored = await t.api('GET', '/firmwares?limit=100');
    expect(stored.body.firmwares.length).toBeGreaterThan(1);
    expect(report.byStatus.get(500) ?? 0).toBeGreaterThan(0);
    // Most requests must get past validation, or the fuzzer only tests the schema compiler.
    const reachedHandlers = [...report.byStatus].filter(([status]) => status < 400 || status === 404 || status === 409).reduce((n, [, c]) => n + c, 0);
    expect(reachedHandlers / report.requests).toBeGreaterThan(0.15);

    expect((await t.api('GET', '/healthz')).status).toBe(200);
    expect((await t.api('GET', `/products/${mine.prnsByType.get('product')![0]}`)).status).toBe(200);
  }, 300_000);
});
