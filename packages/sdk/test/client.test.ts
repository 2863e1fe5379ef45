/** The typed client, the untyped request, errors and pagination against a real server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CanopyApiError, CanopyNetworkError, createCanopyClient, listAll, paginate, type CanopyClient } from '../src/index';
import { startTestServer, type TestServer } from '../../server/test/support/server';

let server: TestServer;
let client: CanopyClient;

beforeAll(async () => {
  server = await startTestServer();
  client = createCanopyClient({ baseUrl: server.url, apiKey: server.apiKey });
});
afterAll(() => server?.close());

describe('client', () => {
  it('typed calls through openapi-fetch', async () => {
    const { data } = await client.api.POST('/products', { body: { name: 'typed' } });
    expect(data?.product.name).toBe('typed');
    const got = await client.api.GET('/products/{prn}', { params: { path: { prn: data!.product.prn } } });
    expect(got.data?.product.prn).toBe(data!.product.prn);
  });

  it('non-2xx answers throw CanopyApiError with status, code and context', async () => {
    const error = await client.api.POST('/products', { body: { name: '' } }).catch((e) => e);
    expect(error).toBeInstanceOf(CanopyApiError);
    expect(error.status).toBe(422);
    expect(error.code).toBe('validation');
    expect(error.context).toMatchObject({ field: 'name' });

    const viaRequest = await client.request('GET', '/products', { query: { limit: 1000 } }).catch((e) => e);
    expect(viaRequest).toBeInstanceOf(CanopyApiError);
    expect(viaRequest).toMatchObject({ status: 400, code: 'parameter' });

    const anonymous = createCanopyClient({ baseUrl: server.url });
    await expect(anonymous.request('GET', '/products')).rejects.toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  it('network failures throw CanopyNetworkError', async () => {
    const offline = createCanopyClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'x' });
    await expect(offline.request('GET', '/products')).rejects.toBeInstanceOf(CanopyNetworkError);
    await expect(offline.api.GET('/products')).rejects.toBeInstanceOf(CanopyNetworkError);
  });

  it('paginate walks every page through next_page', async () => {
    for (let i = 0; i < 5; i++) await client.request('POST', '/products', { body: { name: `page-${i}` } });
    const names: string[] = [];
    for await (const product of paginate<{ name: string }>(client, '/products', { query: { limit: 2, order: 'asc', search: "name-'page-'" } })) names.push(product.name);
    expect(names).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
    expect(await listAll(client, '/products', { itemsKey: 'products', query: { limit: 3, search: "name-'page-'" } })).toHaveLength(5);
  });
});
