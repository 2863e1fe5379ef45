/**
 * One manifest entry fetched by its delta (decision 009): find the base on the device, download
 * the delta resumably (like a binary: by hash, HTTP Range), rebuild the binary where its full
 * download would land, and check its size and SHA-256 against the entry. The update loop then
 * verifies hash and signatures exactly as for a full download. Every failure answers a fallback
 * reason instead of throwing, and the loop downloads the full binary.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ManifestEntry } from '@canopy/sdk/device';
import type { DaemonConfig } from '../config/types.ts';
import { downloadEntry, DownloadError, finishedPath } from '../download/download-entry.ts';
import type { Installer } from '../installers/installer.ts';
import type { CanopyMetadata } from '../installers/metadata.ts';
import { sha256File } from '../verify/hash-file.ts';
import { DeltaFailed, openDelta, rebuild, zstdAvailable } from './apply-delta.ts';
import { baseCandidates, findBase, type BaseCandidate } from './base-source.ts';

/** Why the full binary was downloaded after all (the daemon logs it and keeps it in its status). */
export type FallbackReason = 'zstd_missing' | 'missing_base' | 'delta_download_failed' | 'corrupt_delta' | 'hash_mismatch';

export type DeltaOutcome =
  /** The binary was rebuilt: `wireBytes` (the delta's size) came over the network instead of the binary's. */
  | { used: true; wireBytes: number; base: BaseCandidate['source'] }
  /** Not rebuilt; `wireBytes` of delta were fetched for nothing (0 when it failed before). */
  | { used: false; reason: FallbackReason; detail: string; wireBytes: number };

export interface DeltaFetchOptions {
  config: DaemonConfig;
  metadata: CanopyMetadata;
  /** The installer the entry names: where it reads earlier installs back (Installer.deltaBases). */
  installer?: Installer;
  signal: AbortSignal;
  caPem?: Buffer;
  /** Downloads the delta (with the loop's retries of a lost connection) given its pseudo-entry and dir. */
  download?: (delta: ManifestEntry, dir: string) => Promise<string>;
  onResume?: (offset: number) => void;
}

const deltasDir = (config: DaemonConfig) => path.join(config.download_dir, 'deltas');

const REASONS: Record<DeltaFailed['reason'], FallbackReason> = { zstd_missing: 'zstd_missing', bad_delta: 'corrupt_delta', wrong_base: 'missing_base', mismatch: 'hash_mismatch' };

/** Null: no delta offered (or deltas are off), so the full binary is the only way. */
export async function fetchByDelta(entry: ManifestEntry, options: DeltaFetchOptions): Promise<DeltaOutcome | null> {
  const { config, signal } = options;
  const delta = entry.delta;
  const settings = config.deltas ?? { enabled: true, keep_base: false, zstd: 'zstd' };
  if (!delta || !settings.enabled) return null;
  const fail = (reason: FallbackReason, detail: string, wireBytes = 0): DeltaOutcome => ({ used: false, reason, detail, wireBytes });
  if (!(await zstdAvailable(settings.zstd))) return fail('zstd_missing', `${settings.zstd} does not run`);

  const candidates = baseCandidates(config, options.metadata, delta.base_hash, options.installer);
  let { base, deferred } = await findBase(candidates, delta.base_hash);
  if (!base && !deferred) return fail('missing_base', `no copy of binary ${delta.base_hash} on the device`);

  const dir = deltasDir(config);
  const pseudo = { ...entry, url: delta.url, size: delta.size, hash: delta.hash, delta: undefined } as ManifestEntry;
  let deltaFile: string;
  try {
    deltaFile = options.download ? await options.download(pseudo, dir) : await downloadEntry(pseudo, { dir, signal, caPem: options.caPem, onResume: options.onResume });
  } catch (error) {
    if (signal.aborted) throw error;
    const integrity = error instanceof DownloadError && error.kind === 'integrity';
    return fail(integrity ? 'corrupt_delta' : 'delta_download_failed', (error as Error).message);
  }

  const work = path.join(dir, `work-${entry.hash.toLowerCase()}`);
  const finished = finishedPath(config.download_dir, entry);
  const rebuilt = `${finished}.rebuild`;
  try {
    await fsp.rm(work, { recursive: true, force: true });
    await fsp.mkdir(work, { recursive: true, mode: 0o700 });
    const d = await openDelta(deltaFile, work, settings.zstd);
    if (d.base.sha256 !== delta.base_hash.toLowerCase() || d.target.sha256 !== entry.hash.toLowerCase() || d.target.size !== entry.size) {
      return fail('corrupt_delta', 'the delta is not from the offered base to the offered binary', delta.size);
    }
    base ??= (await findBase(candidates, d.base.sha256, d.base.size)).base;
    if (!base) return fail('missing_base', `no copy of binary ${delta.base_hash} on the device`, delta.size);
    await rebuild(base.path, d, work, rebuilt, settings.zstd);
    const { hash, size } = await sha256File(rebuilt, signal);
    if (size !== entry.size || hash !== entry.hash.toLowerCase()) return fail('hash_mismatch', `rebuilt binary has sha256 ${hash} (${size} bytes), not ${entry.hash.toLowerCase()}`, delta.size);
    await fsp.rename(rebuilt, finished);
    return { used: true, wireBytes: delta.size, base: base.source };
  } catch (error) {
    if (signal.aborted) throw error;
    if (error instanceof DeltaFailed) return fail(REASONS[error.reason], error.message, delta.size);
    return fail('corrupt_delta', (error as Error).message, delta.size);
  } finally {
    await fsp.rm(work, { recursive: true, force: true });
    await fsp.rm(rebuilt, { force: true });
    // The delta is used once: rebuilt or not, the next attempt of this entry is the full binary.
    if (fs.existsSync(deltaFile)) await fsp.rm(deltaFile, { force: true });
  }
}
