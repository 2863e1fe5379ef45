/**
 * `canopy binaries create` end to end on a 64 MiB file: a real canopy process is killed once two
 * parts are in, then the upload is run again and resumes (skipping the valid parts), is verified,
 * signed with a generated key pair, and released to a cohort.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createCanopyClient, listAll, planFile, type BinaryPart } from '@canopy/sdk';
import { expect, it } from 'vitest';
import { canopy, canopyOk } from './support/run-canopy';
import { cliEnv, temporaryConfigDir, useTestServer } from './support/server';

const server = useTestServer();
const canopyBin = path.resolve(__dirname, '../bin/canopy.mjs');

/** Runs bin/canopy as its own process and kills it (SIGKILL, no chance to tidy up) once its stderr matches `until`. */
function runAndKill(args: string[], env: Record<string, string>, until: (stderr: string) => boolean): Promise<{ stderr: string; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, [canopyBin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    if (until(stderr)) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (_code, signal) => resolve({ stderr, signal }));
  });
}

const uploadedLines = (stderr: string) => stderr.match(/^part \d+\/\d+ uploaded \(/gm)?.length ?? 0;

it('uploads 64 MiB in parts, resumes after the process is killed, waits for signable, signs, releases', async () => {
  const configDir = temporaryConfigDir();
  const env = cliEnv(server, configDir);
  const ok = canopyOk(env);

  const artifact = (await ok(['artifacts', 'create', '--name', 'rootfs'])).artifact;
  const version = (await ok(['artifact-versions', 'create', '--artifact-prn', artifact.prn, '--version', '1.0.0'])).artifact_version;
  const key = (await ok(['signing-keys', 'create', '--generate', 'release'])).signing_key;
  expect(fs.statSync(path.join(configDir, 'signing-keys', 'release.pem')).mode & 0o777).toBe(0o600);

  const file = path.join(configDir, 'rootfs.img');
  fs.writeFileSync(file, randomBytes(64 * 1024 * 1024));
  const plan = await planFile(file, 8 * 1024 * 1024);
  expect(plan.parts).toHaveLength(8);
  const upload = ['binaries', 'create', '--content-path', file, '--artifact-version-prn', version.prn, '--target', 'aarch64-unknown-linux-gnu', '--signing-key-pair', 'release', '--part-size', '8'];

  // First attempt: one part at a time, the process killed as soon as it reports the second part.
  const killed = await runAndKill([...upload, '--concurrency', '1'], env, (stderr) => uploadedLines(stderr) >= 2);
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  const binaryPrn = killed.stderr.match(/^created binary (\S+)/m)?.[1];
  expect(binaryPrn, killed.stderr).toBeDefined();
  // The third part may have landed between the report and the kill; never all of them.
  const client = createCanopyClient({ baseUrl: server.url, apiKey: server.apiKey });
  const valid = (await listAll<BinaryPart>(client, `/binaries/${binaryPrn}/parts`, { itemsKey: 'binary_parts' })).filter((p) => p.state === 'valid').map((p) => p.index);
  expect(valid).toEqual(expect.arrayContaining([1, 2]));
  expect(valid.length).toBeLessThan(8);

  // Second attempt, same command: skips the valid parts, uploads the rest, verifies and signs.
  const run = await canopy(upload, env);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain(`resuming binary ${binaryPrn}`);
  expect(run.stderr.match(/already uploaded/g)).toHaveLength(valid.length);
  expect(uploadedLines(run.stderr)).toBe(8 - valid.length);
  expect(run.json.binary).toMatchObject({ prn: binaryPrn, hash: plan.hash, size: plan.size, state: 'signed' });
  expect(run.json.binary.signatures).toEqual([expect.objectContaining({ signing_key_prn: key.prn })]);

  // Running it again changes nothing: same binary, already signed.
  const again = await canopy(upload, env);
  expect(again.code, again.stderr).toBe(0);
  expect(again.json.binary.prn).toBe(binaryPrn);
  expect(again.stderr).toContain('already signed with release');

  // With --cohort-prn it also makes the bundle and the release.
  const product = (await ok(['products', 'create', '--name', 'gw'])).product;
  const cohort = (await ok(['cohorts', 'create', '--name', 'field', '--product-prn', product.prn])).cohort;
  const released = await canopy([...upload, '--cohort-prn', cohort.prn], env);
  expect(released.code, released.stderr).toBe(0);
  expect(released.json.release).toMatchObject({ cohort_prn: cohort.prn, bundle_prn: released.json.bundle.prn });
}, 600_000);
