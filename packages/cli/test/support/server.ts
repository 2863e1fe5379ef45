/** The real Canopy server of the server workspace's test harness, and whether a route exists on it yet. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
export { startTestServer, type TestServer } from '../../../server/test/support/server';

/** True when the server's OpenAPI document lists this path (routes that land later appear here). */
export async function hasRoute(baseUrl: string, method: string, route: string): Promise<boolean> {
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  return Boolean(document.paths[route]?.[method.toLowerCase()]);
}

export function temporaryConfigDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-cli-test-'));
}
