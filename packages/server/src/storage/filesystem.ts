/**
 * The default BlobStore: one file per key under a root folder (CANOPY_DATA_DIR/blobs).
 * A put streams into a temporary file in the same filesystem and renames it into place only
 * once every byte is written, so a crash or an aborted upload never leaves a half-written file
 * under a real key. Temporary files of a crashed process are swept at start.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { BlobNotFound, checkKey, type BlobStore, type ByteRange } from './blob-store';

const TEMP_DIR = '.incoming';

export function createFilesystemBlobStore(root: string): BlobStore {
  const tempDir = path.join(root, TEMP_DIR);
  fs.rmSync(tempDir, { recursive: true, force: true });
  fs.mkdirSync(tempDir, { recursive: true });
  const fileOf = (key: string) => path.join(root, checkKey(key));

  return {
    kind: 'filesystem',

    async put(key, body) {
      const target = fileOf(key);
      const temp = path.join(tempDir, randomUUID());
      try {
        await pipeline(body, fs.createWriteStream(temp, { highWaterMark: 1024 * 1024 }));
        await fs.promises.mkdir(path.dirname(target), { recursive: true });
        await fs.promises.rename(temp, target);
      } catch (error) {
        await fs.promises.rm(temp, { force: true });
        throw error;
      }
    },

    async get(key, range?: ByteRange) {
      const file = fileOf(key);
      // Open first, so a missing file is a BlobNotFound now rather than a stream error later.
      const handle = await fs.promises.open(file, 'r').catch((error: NodeJS.ErrnoException) => {
        throw error.code === 'ENOENT' ? new BlobNotFound(key) : error;
      });
      return handle.createReadStream({ start: range?.start, end: range?.end, highWaterMark: 1024 * 1024 });
    },

    async size(key) {
      const stat = await fs.promises.stat(fileOf(key)).catch(() => null);
      return stat?.isFile() ? stat.size : null;
    },

    async delete(key) {
      await fs.promises.rm(fileOf(key), { force: true });
    },

    async deletePrefix(prefix) {
      const folder = fileOf(prefix.replace(/\/+$/, ''));
      await fs.promises.rm(folder, { recursive: true, force: true });
    },

    // The server serves uploads and downloads itself, through signed URLs (signed-urls.ts).
    async presignUpload() {
      return null;
    },
    async presignDownload() {
      return null;
    },
  };
}
