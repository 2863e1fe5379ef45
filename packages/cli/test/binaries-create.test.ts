/**
 * `canopy binaries create` end to end: a 64 MiB file, upload interrupted after two parts, then
 * resumed by the CLI, verified, signed with a generated key pair and (when the routes exist)
 * released to a cohort. Needs the binaries routes; skipped with the reason until they land.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createCanopyClient, listAll, planFile, uploadBinary, type BinaryPart } from '@canopy/sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { canopy } from './support/run-canopy';
import { cliEnv, hasRoute, startTestServer, temporaryConfigDir, type TestServer } from './support/server';

let server: TestServer;
let partsRoute = false;

beforeAll(async () => {
  server = await startTestServer();
  partsRoute = await hasRoute(server.url, 'PUT', '/binaries/{prn}/parts/{index}');
  if (!partsRoute) console.warn('SKIPPED binaries create end to end: PUT /binaries/{prn}/parts/{index} answers 404 on this server (binaries routes not on main yet)');
});
afterAll(() => server?.close());

it('uploads 64 MiB in parts, resumes after an interruption, waits for signable, signs', async (context) => {
  if (!partsRoute) return context.skip('PUT /binaries/{prn}/parts/{index} answers 404: the binaries routes are not on this server yet');
  const configDir = temporaryConfigDir();
  const env = cliEnv(server, configDir);
  const ok = async (args: string[]) => {
    const run = await canopy(args, env);
    expect(run.code, `${args.join(' ')}\n${run.stderr}`).toBe(0);
    return run.json;
  };

  const artifact = (await ok(['artifacts', 'create', '--name', 'rootfs'])).artifact;
  const version = (await ok(['artifact-versions', 'create', '--artifact-prn', artifact.prn, '--version', '1.0.0'])).artifact_version;
  const key = (await ok(['signing-keys', 'create', '--generate', 'release'])).signing_key;
  expect(fs.statSync(path.join(configDir, 'signing-keys', 'release.pem')).mode & 0o777).toBe(0o600);

  const file = path.join(configDir, 'rootfs.img');
  fs.writeFileSync(file, randomBytes(64 * 1024 * 1024));
  const plan = await planFile(file, 8 * 1024 * 1024);
  expect(plan.parts).toHaveLength(8);

  // First attempt: one part at a time, cut off once two parts are in.
  const client = createCanopyClient({ baseUrl: server.url, apiKey: server.apiKey });
  const abort = new AbortController();
  let uploaded = 0;
  const interrupted = uploadBinary(client, {
    filePath: file, plan, artifactVersionPrn: version.prn, target: 'aarch64-unknown-linux-gnu', concurrency: 1, signal: abort.signal,
    onEvent: (event) => {
      if (event.type === 'part-uploaded' && ++uploaded === 2) abort.abort();
    },
  });
  await expect(interrupted).rejects.toThrow();
  const binaryPrn = (await ok(['binaries', 'list', '--all'])).binaries[0].prn as string;
  const valid = (await listAll<BinaryPart>(client, `/binaries/${binaryPrn}/parts`, { itemsKey: 'binary_parts' })).filter((p) => p.state === 'valid');
  expect(valid.map((p) => p.index).sort()).toEqual([1, 2]);

  // Second attempt through the CLI: skips the two valid parts, uploads six, signs.
  const run = await canopy(['binaries', 'create', '--content-path', file, '--artifact-version-prn', version.prn, '--target', 'aarch64-unknown-linux-gnu', '--signing-key-pair', 'release', '--part-size', '8'], env);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain(`resuming binary ${binaryPrn}`);
  expect(run.stderr.match(/already uploaded/g)).toHaveLength(2);
  expect(run.stderr.match(/\/\d+ uploaded \(/g)).toHaveLength(6);
  expect(run.json.binary).toMatchObject({ prn: binaryPrn, hash: plan.hash, size: plan.size, state: 'signed' });
  expect(run.json.binary.signatures).toEqual([expect.objectContaining({ signing_key_prn: key.prn })]);

  // Running it again changes nothing: same binary, already signed.
  const again = await canopy(['binaries', 'create', '--content-path', file, '--artifact-version-prn', version.prn, '--target', 'aarch64-unknown-linux-gnu', '--signing-key-pair', 'release'], env);
  expect(again.code, again.stderr).toBe(0);
  expect(again.json.binary.prn).toBe(binaryPrn);

  if (await hasRoute(server.url, 'POST', '/releases')) {
    const product = (await ok(['products', 'create', '--name', 'gw'])).product;
    const cohort = (await ok(['cohorts', 'create', '--name', 'field', '--product-prn', product.prn])).cohort;
    const released = await canopy(['binaries', 'create', '--content-path', file, '--artifact-version-prn', version.prn, '--target', 'aarch64-unknown-linux-gnu', '--signing-key-pair', 'release', '--cohort-prn', cohort.prn], env);
    expect(released.code, released.stderr).toBe(0);
    expect(released.json.release).toMatchObject({ cohort_prn: cohort.prn, bundle_prn: released.json.bundle.prn });
  }
}, 300_000);
