/**
 * Generated fuzzing of every device API route, from the device OpenAPI document, over real
 * mutual TLS: most requests present an enrolled device's registered certificate (so they reach
 * the handlers), some present none. Same pass rule as the admin fuzz: no 5xx, every 4xx in the
 * error shape naming the field, the server healthy after. The legacy `GET /device/update` is in
 * the document, so it is fuzzed like the others.
 */
import https from 'node:https';
import { describe, expect, it } from 'vitest';
import { operationsOf } from '../support/fuzz/operations';
import { FUZZ_SEED, fuzzOperations } from '../support/fuzz/run';
import { populateEveryList, useFuzzServer } from '../support/fuzz/server';

const fuzz = useFuzzServer();

const AS_DEVICE = Number(process.env.FUZZ_DEVICE_PER_OPERATION ?? 300);
const WITHOUT_CERTIFICATE = 20;

describe('device API under generated requests', () => {
  it('answers every fuzzed request without a 5xx, in the error shape, and stays healthy', async () => {
    const { t } = fuzz;
    const started = Date.now();
    const mine = await populateEveryList(fuzz);
    const other = await t.createOrganization();
    const operations = operationsOf((t.server.device.app as unknown as { swagger(): unknown }).swagger());
    expect(operations.length).toBeGreaterThanOrEqual(6);
    // `GET /device/update` is aimed at the populated firmware's uuid (x-canopy-uuid) as well.
    const context = { prnsByType: mine.prnsByType, organizationIds: [t.organizationId, other.organizationId], namedValues: mine.legacy.values };

    const device = new https.Agent({ keepAlive: true, maxSockets: 6, ca: t.deviceServerCaPem, cert: mine.device.certificate.certPem, key: mine.device.certificate.keyPem });
    const anonymous = new https.Agent({ keepAlive: true, maxSockets: 2, ca: t.deviceServerCaPem });
    const asDevice = await fuzzOperations({ baseUrl: t.deviceUrl, agent: device }, operations, context, AS_DEVICE, { concurrency: 6 });
    const unauthenticated = await fuzzOperations({ baseUrl: t.deviceUrl, agent: anonymous }, operations, context, WITHOUT_CERTIFICATE, { concurrency: 2 });
    device.destroy();
    anonymous.destroy();

    const seconds = (Date.now() - started) / 1000;
    for (const [name, report] of [['as device', asDevice], ['no certificate', unauthenticated]] as const) {
      console.info(`device fuzz (${name}): seed ${FUZZ_SEED}, ${report.requests} requests; statuses ${JSON.stringify(Object.fromEntries([...report.byStatus].sort()))}`);
    }
    console.info(`device fuzz: ${operations.length} operations in ${seconds.toFixed(1)} s`);
    expect(asDevice.breaches).toEqual([]);
    expect(unauthenticated.breaches).toEqual([]);
    expect(asDevice.requests + unauthenticated.requests).toBe(operations.length * (AS_DEVICE + WITHOUT_CERTIFICATE));
    expect([...unauthenticated.byStatus.keys()].every((status) => status === 401 || status === 400 || status === 404 || status === 414 || status === 431)).toBe(true);
    expect(asDevice.byStatus.get(200) ?? 0).toBeGreaterThan(0);

    expect((await mine.device.api('GET', '/device/me')).status).toBe(200);
    expect((await t.api('GET', '/healthz')).status).toBe(200);
  });
});
