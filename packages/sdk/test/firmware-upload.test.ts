/** uploadFirmware against a real server: both path families, streamed from a file on disk. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CanopyApiError, createCanopyClient, uploadFirmware, type CanopyClient } from '../src/index';
import { firmwareKey } from '../../server/test/support/fwup';
import { archiveFor } from '../../server/test/support/legacy';
import { startTestServer, type TestServer } from '../../server/test/support/server';

let server: TestServer;
let client: CanopyClient;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-sdk-fw-'));

beforeAll(async () => {
  server = await startTestServer();
  client = createCanopyClient({ baseUrl: server.url, apiKey: server.apiKey });
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('uploads a fwup archive by organization and product name, and by product prn', async () => {
  const signingKey = firmwareKey();
  await client.request('POST', '/signing_keys', { body: { name: 'fwup-sdk', value: signingKey.value } });
  const product = await client.request<{ product: { prn: string } }>('POST', '/products', { body: { name: 'sdk-gateway' } });
  const first = archiveFor({ signingKey }, 'sdk-gateway', '1.0.0');
  const second = archiveFor({ signingKey }, 'sdk-gateway', '1.1.0');
  fs.writeFileSync(path.join(dir, 'first.fw'), first.bytes);
  fs.writeFileSync(path.join(dir, 'second.fw'), second.bytes);

  const byName = await uploadFirmware(client, path.join(dir, 'first.fw'), { orgName: 'default', productName: 'sdk-gateway' }, 60);
  expect(byName).toMatchObject({ uuid: first.uuid, version: '1.0.0', product: 'sdk-gateway', ttl: 60 });
  const byPrn = await uploadFirmware(client, path.join(dir, 'second.fw'), { productPrn: product.product.prn });
  expect(byPrn).toMatchObject({ uuid: second.uuid, version: '1.1.0' });

  const duplicate = await uploadFirmware(client, path.join(dir, 'second.fw'), { productPrn: product.product.prn }).catch((error) => error);
  expect(duplicate).toBeInstanceOf(CanopyApiError);
  expect(duplicate.status).toBe(409);
  await expect(uploadFirmware(client, path.join(dir, 'first.fw'), {})).rejects.toThrow(/productPrn/);
});
