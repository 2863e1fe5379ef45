import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ManifestEntry } from '@canopy/sdk/device';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDelta } from '../../../server/src/deltas/segmented-patch';
import type { DaemonConfig } from '../config/types.ts';
import { finishedPath } from '../download/download-entry.ts';
import { fileInstaller } from '../installers/file.ts';
import type { CanopyMetadata } from '../installers/metadata.ts';
import { fetchByDelta } from './fetch-delta.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fetch-delta-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const base = randomBytes(300_000);
const target = Buffer.from(base);
randomBytes(4096).copy(target, 100_000);
const installedPath = path.join(dir, 'app.bin');
fs.writeFileSync(path.join(dir, 'target'), target);
fs.writeFileSync(installedPath, base);
const deltaPath = path.join(dir, 'delta.tar');
const config = { download_dir: path.join(dir, 'downloads'), state_dir: path.join(dir, 'state'), deltas: { enabled: true, keep_base: false, zstd: 'zstd' } } as DaemonConfig;
const metadata = { installer: 'file', reboot_required: false, file: { path: installedPath, mode: 0o644 } } as CanopyMetadata;

async function entry(): Promise<ManifestEntry> {
  if (!fs.existsSync(deltaPath)) await makeDelta(installedPath, path.join(dir, 'target'), deltaPath);
  const delta = fs.readFileSync(deltaPath);
  return { binary_prn: 'prn:1:o:binary:b', hash: sha(target), size: target.length, url: 'http://unused', artifact: { name: 'app' }, delta: { url: 'http://unused', size: delta.length, hash: sha(delta), base_binary_prn: 'prn:1:o:binary:a', base_hash: sha(base) } } as ManifestEntry;
}

/** Stands in for the transfer: copies the delta (or other bytes) where the download would put it. */
const serve = (bytes?: Buffer) => async (pseudo: ManifestEntry, into: string) => {
  fs.mkdirSync(into, { recursive: true });
  const file = path.join(into, `${pseudo.hash}.bin`);
  fs.writeFileSync(file, bytes ?? fs.readFileSync(deltaPath));
  return file;
};
const options = (download = serve()) => ({ config, metadata, installer: fileInstaller, signal: new AbortController().signal, download });

describe('fetchByDelta', () => {
  it('rebuilds the binary where its download would land, from the installed file', async () => {
    const outcome = await fetchByDelta(await entry(), options());
    expect(outcome).toMatchObject({ used: true, base: 'installed' });
    expect(fs.readFileSync(finishedPath(config.download_dir, await entry())).equals(target)).toBe(true);
    fs.rmSync(config.download_dir, { recursive: true });
  });

  it('answers null when no delta is offered or deltas are off', async () => {
    expect(await fetchByDelta({ ...(await entry()), delta: undefined }, options())).toBeNull();
    expect(await fetchByDelta(await entry(), { ...options(), config: { ...config, deltas: { enabled: false, keep_base: false, zstd: 'zstd' } } })).toBeNull();
  });

  it('falls back, with the reason, without fetching when zstd or the base is missing', async () => {
    let fetched = 0;
    const counting = async (p: ManifestEntry, d: string) => (fetched++, serve()(p, d));
    expect(await fetchByDelta(await entry(), { ...options(counting), config: { ...config, deltas: { enabled: true, keep_base: false, zstd: '/nonexistent/zstd' } } })).toMatchObject({ used: false, reason: 'zstd_missing' });
    const other = { ...(await entry()) };
    other.delta = { ...other.delta!, base_hash: sha(randomBytes(8)) };
    expect(await fetchByDelta(other, options(counting))).toMatchObject({ used: false, reason: 'missing_base', wireBytes: 0 });
    expect(fetched).toBe(0);
  });

  it('falls back on a delta that is not a delta archive, and leaves no file behind', async () => {
    const outcome = await fetchByDelta(await entry(), options(serve(randomBytes(2000))));
    expect(outcome).toMatchObject({ used: false, reason: 'corrupt_delta' });
    expect(fs.existsSync(finishedPath(config.download_dir, await entry()))).toBe(false);
    expect(fs.readdirSync(path.join(config.download_dir, 'deltas'))).toEqual([]);
  });
});
