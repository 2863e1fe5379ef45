/**
 * A bare mutual-TLS server in its own process, trusting the device CA: the hello-world baseline
 * (https-hello-world.ts), or a floor of the device API (update-check-floor.ts,
 * report-ingestion-floor.ts, with the database in `env`). Ready once `probe` gets an answer
 * to `path` (a POST of `body` when one is given).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeServerIdentity } from './device-certificates';
import { mtlsLoad, type MtlsClient } from './mtls-load';
import { freePort, startNode } from './processes';

export async function startBareServer(script: string, deviceCaPem: string, probe: MtlsClient, env: Record<string, string> = {}, route: { path: string; body?: string } = { path: '/update' }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-bare-'));
  const { ca, server } = await makeServerIdentity();
  const files = { TLS_CERT: path.join(dir, 'server.pem'), TLS_KEY: path.join(dir, 'server.key'), CLIENT_CA: path.join(dir, 'clients.pem') };
  fs.writeFileSync(files.TLS_CERT, server.certPem);
  fs.writeFileSync(files.TLS_KEY, server.keyPem);
  fs.writeFileSync(files.CLIENT_CA, deviceCaPem);
  const port = await freePort();
  const url = `https://127.0.0.1:${port}${route.path}`;
  const ready = async () => (await mtlsLoad({ url, ca: ca.certPem, clients: [probe], seconds: 0.01, body: route.body })).requestsPerSecond > 0;
  const child = await startNode(script, { ...files, ...env, PORT: String(port) }, ready);
  return { child, url, ca: ca.certPem, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export type BareServer = Awaited<ReturnType<typeof startBareServer>>;
