/**
 * Where a delta's base comes from on this device: a copy of the last installed binary kept under
 * `state_dir/delta-bases` (`deltas.keep_base`, the only source for installers whose result is
 * not the binary: rauc, swupdate, deb, tar, script), then what the installer reads back
 * (`Installer.deltaBases`: the installed file for `file`, both slots for `avocado-ab`). A
 * candidate is the base only if its first bytes hash to the base hash the manifest names:
 * nothing is trusted by where it came from.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { DaemonConfig } from '../config/types.ts';
import type { Installer } from '../installers/installer.ts';
import type { CanopyMetadata } from '../installers/metadata.ts';
import { sha256File } from './apply-delta.ts';

export interface BaseCandidate {
  path: string;
  /** For the daemon's log and status: where the base was found. */
  source: 'kept_copy' | 'installed';
}

export const keptBasesDir = (config: DaemonConfig) => path.join(config.state_dir, 'delta-bases');
export const keptBasePath = (config: DaemonConfig, hash: string) => path.join(keptBasesDir(config), `${hash.toLowerCase()}.bin`);

export function baseCandidates(config: DaemonConfig, metadata: CanopyMetadata, baseHash: string, installer?: Installer): BaseCandidate[] {
  const installed = installer?.deltaBases?.(metadata, config) ?? [];
  return [{ path: keptBasePath(config, baseHash), source: 'kept_copy' as const }, ...installed.map((p) => ({ path: p, source: 'installed' as const }))];
}

/**
 * The first candidate whose first `size` bytes hash to `hash`. `size` undefined: regular files
 * are hashed whole, and devices (whose length is not the image's) are left for a second call
 * once the delta says the base's size; `deferred` tells the caller some were left.
 */
export async function findBase(candidates: BaseCandidate[], hash: string, size?: number): Promise<{ base: BaseCandidate | null; deferred: boolean }> {
  let deferred = false;
  for (const candidate of candidates) {
    const stats = await fsp.stat(candidate.path).catch(() => null);
    if (!stats) continue;
    const regular = stats.isFile();
    if (!regular && !stats.isBlockDevice()) continue;
    if (size === undefined && !regular) {
      deferred = true;
      continue;
    }
    const length = size ?? stats.size;
    if (regular && stats.size < length) continue;
    const actual = await sha256File(candidate.path, length).catch(() => null);
    if (actual === hash.toLowerCase()) return { base: candidate, deferred };
  }
  return { base: null, deferred };
}

/**
 * After an install with `deltas.keep_base`: keeps a copy of each installed binary as the next
 * delta's base and removes copies of binaries no longer installed. Best effort: without the copy
 * the next update downloads the full binary.
 */
export async function keepBases(config: DaemonConfig, installed: Array<{ file: string; hash: string }>): Promise<void> {
  const dir = keptBasesDir(config);
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  const keep = new Set(installed.map((i) => `${i.hash.toLowerCase()}.bin`));
  for (const { file, hash } of installed) {
    const target = keptBasePath(config, hash);
    if (await fsp.stat(target).catch(() => null)) continue;
    await fsp.copyFile(file, `${target}.tmp`);
    await fsp.rename(`${target}.tmp`, target);
  }
  for (const name of await fsp.readdir(dir)) if (!keep.has(name)) await fsp.rm(path.join(dir, name), { force: true });
}
