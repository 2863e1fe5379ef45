/**
 * `canopy binaries deltas` against a real server: two versions of one artifact uploaded, signed
 * and released with the CLI; the server's job makes the delta from the first binary to the
 * second, and the command shows its base, state and size beside the full binary's.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { fencedBlocks } from '../../../site/test/helpers/shellBlocks';
import { fleetFixtures } from './support/fixtures';
import { canopyOk } from './support/run-canopy';
import { useCliEnv, useTestServer } from './support/server';

const server = useTestServer();
const env = useCliEnv(server);
const ok = canopyOk(env);

it('shows the delta made between two released binaries of one artifact, and its size', async () => {
  const { artifact, version, cohort } = await fleetFixtures(ok, 'deltas');
  const version2 = (await ok(['artifact-versions', 'create', '--artifact-prn', artifact.prn, '--version', '2.0.0'])).artifact_version;
  await ok(['signing-keys', 'create', '--generate', 'deltas-key']);
  const one = Buffer.alloc(1024 * 1024);
  for (let at = 0; at < one.length; at += 8192) randomBytes(4096).copy(one, at);
  const two = Buffer.from(one);
  randomBytes(4096).copy(two, 40 * 4096);
  const dir = fs.mkdtempSync(path.join(env.CANOPY_CONFIG_DIR, 'images-'));
  const create = async (bytes: Buffer, versionPrn: string, name: string) => {
    fs.writeFileSync(path.join(dir, name), bytes);
    return (await ok(['binaries', 'create', '--content-path', path.join(dir, name), '--artifact-version-prn', versionPrn, '--target', 'x86_64-linux', '--signing-key-pair', 'deltas-key', '--cohort-prn', cohort.prn])).binary;
  };
  const first = await create(one, version.prn, 'one.img');
  const second = await create(two, version2.prn, 'two.img');

  let deltas: Array<{ base_binary_prn: string; state: string; size: number | null; target_size: number }> = [];
  for (let i = 0; i < 150 && deltas[0]?.state !== 'ready'; i++) {
    deltas = (await ok(['binaries', 'deltas', second.prn])).binary_deltas;
    if (deltas[0]?.state !== 'ready') await new Promise((r) => setTimeout(r, 200));
  }
  expect(deltas).toEqual([expect.objectContaining({ base_binary_prn: first.prn, target_binary_prn: second.prn, state: 'ready', target_size: two.length })]);
  expect(deltas[0]!.size).toBeLessThan(two.length / 10);
  // The delta-updates docs page's example, run as written.
  const page = fs.readFileSync(path.resolve(__dirname, '../../../site/docs/canopy-core/tools/canopy-daemon/delta-updates.md'), 'utf8');
  const example = fencedBlocks('delta-updates.md', page).find((b) => b.lang === 'sh' && b.meta.includes('binary-deltas.test.ts'))!.code.trim();
  const cli = path.resolve(__dirname, '../bin/canopy.mjs');
  const script = `canopy() { "${process.execPath}" "${cli}" "$@"; }\n${example}`;
  // Not execFileSync: the server answering the CLI runs in this process.
  const shown = JSON.parse((await promisify(execFile)('bash', ['-c', script], { env: { ...process.env, ...env, BINARY_PRN: second.prn } })).stdout);
  expect(shown.binary_deltas[0]).toMatchObject({ base_binary_prn: first.prn, state: 'ready' });
  // The first binary has no delta to it (nothing was released before it).
  expect((await ok(['binaries', 'deltas', first.prn])).binary_deltas).toEqual([]);
});
