/**
 * The daemon's TUF check of an offered update, before any byte of it is fetched (TUF spec 5.3
 * to 5.6, by tuf-js's Updater): root chain, timestamp, snapshot, targets and the product's
 * delegation; then every binary of the offer must be a signed target of its product and release
 * with the offered length and sha256. The trusted metadata lives in `<state_dir>/tuf/`, seeded
 * once from the root installed with the daemon; tuf-js replaces it only with verified files.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Updater } from 'tuf-js';
import type { DeviceTransport, ManifestEntry } from '@canopy/sdk/device';
import { deviceFetcher } from './device-fetcher.ts';
import { refusalOf, TufRefusal } from './refusal.ts';

export interface TufVerifierOptions {
  /** The root.json installed with the daemon (config `tuf.root`). */
  rootPath: string;
  product: string;
  stateDir: string;
  transport: DeviceTransport;
}

export interface OfferedRelease {
  release_prn: string | null;
  entries: readonly Pick<ManifestEntry, 'binary_prn' | 'size' | 'hash'>[];
}

export interface TufVerifier {
  /** Resolves when every binary is signed as offered; rejects with a TufRefusal otherwise. */
  check(offer: OfferedRelease): Promise<void>;
  /** The version of the root now trusted on disk. */
  trustedRootVersion(): Promise<number>;
}

export function createTufVerifier(options: TufVerifierOptions): TufVerifier {
  const metadataDir = path.join(options.stateDir, 'tuf');
  const metadataBaseUrl = `${options.transport.baseUrl.replace(/\/+$/, '')}/tuf`;

  async function seed() {
    if (fs.existsSync(path.join(metadataDir, 'root.json'))) return;
    await fsp.mkdir(metadataDir, { recursive: true, mode: 0o700 });
    await fsp.copyFile(options.rootPath, path.join(metadataDir, 'root.json'));
  }

  return {
    async check(offer) {
      if (!offer.release_prn) throw new TufRefusal('not_in_targets', 'a bundle outside any release has no signed targets');
      await seed();
      const updater = new Updater({ metadataDir, metadataBaseUrl, fetcher: deviceFetcher(options.transport, metadataBaseUrl), config: { fetchRetries: 0 } });
      try {
        await updater.refresh();
        for (const entry of offer.entries) {
          const targetPath = `${options.product}/${offer.release_prn}/${entry.binary_prn}`;
          const target = await updater.getTargetInfo(targetPath);
          if (!target) throw new TufRefusal('not_in_targets', `${targetPath} is not in the signed targets`);
          if (target.length !== entry.size) throw new TufRefusal('length_mismatch', `${entry.binary_prn}: signed length ${target.length}, offered ${entry.size}`);
          if (target.hashes.sha256?.toLowerCase() !== entry.hash.toLowerCase()) throw new TufRefusal('hash_mismatch', `${entry.binary_prn}: signed sha256 differs from the offered one`);
        }
      } catch (error) {
        throw refusalOf(error);
      }
    },
    async trustedRootVersion() {
      await seed();
      const root = JSON.parse(await fsp.readFile(path.join(metadataDir, 'root.json'), 'utf8'));
      return Number(root.signed.version);
    },
  };
}
