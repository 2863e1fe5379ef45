/**
 * The server both fuzz files drive, and the organization they fuzz against. Webhooks may point at
 * the local receiver; timeouts are short because most fuzzed webhooks point nowhere and test fires
 * must not hold requests; retries are far off so no delivery runs during the fuzz.
 */
import { afterAll, beforeAll } from 'vitest';
import { populateOrganization, type PopulatedOrganization } from '../populated-organization';
import { startTestServer, type TestServer } from '../server';
import { startReceiver, type Receiver } from '../webhook-receiver';
import { operationsOf } from './operations';

export interface FuzzServer {
  t: TestServer;
  receiver: Receiver;
}

/** Starts the server and receiver before the file's tests and stops them after; read the fields inside a test. */
export function useFuzzServer(): FuzzServer {
  const fuzz = {} as FuzzServer;
  beforeAll(async () => {
    fuzz.receiver = await startReceiver();
    fuzz.t = await startTestServer({ webhookAllowPrivate: true, webhookCaFiles: [fuzz.receiver.caFile], webhookTimeoutMs: 500, webhookRetryBaseMs: 60_000 });
  });
  afterAll(async () => {
    await fuzz.t?.close();
    await fuzz.receiver?.close();
  });
  return fuzz;
}

/** The test organization with one of everything each admin list route lists, so fuzzed prns name real rows. */
export async function populateEveryList({ t, receiver }: FuzzServer): Promise<PopulatedOrganization> {
  const listPaths = operationsOf(t.server.admin.swagger())
    .filter((o) => o.method === 'GET' && !o.path.includes('{') && !o.streams)
    .map((o) => o.path);
  return populateOrganization(t, { organizationId: t.organizationId, name: t.organizationName, api: t.api }, listPaths, receiver.url);
}
