/**
 * The default BlobStore: one file per key under a root folder (CANOPY_DATA_DIR/blobs).
 * A put streams into a temporary file in the same filesystem and renames it into place only
 * once every byte is written, so a crash or an aborted upload never leaves a half-written file
 * under a real key. Temporary files carry their process's id; those of dead processes are swept at
 * start, and those of another server sharing the data directory are left alone (stale-temp-files.ts).
 *
 * `concat` writes no bytes: it records the list of sources in `<key>.concat` (itself written
 * atomically), and reads of the key go through that list. A binary's parts therefore become its
 * download without being copied, which halves the disk traffic of hashing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobNotFound, checkKey, type BlobStore, type ByteRange, type StagedBlob } from './blob-store';
import { removeStaleTempFiles, tempFileName, type TempFileKind } from './stale-temp-files';

const TEMP_DIR = '.incoming';
/** A put's temporary file in TEMP_DIR. */
const PUT_FILE: TempFileKind = { prefix: 'put-', suffix: '.tmp' };
const CONCAT_SUFFIX = '.concat';
const READ_CHUNK = 1024 * 1024;

interface Concatenation {
  sources: { key: string; size: number }[];
}

export function createFilesystemBlobStore(root: string): BlobStore {
  const tempDir = path.join(root, TEMP_DIR);
  fs.mkdirSync(tempDir, { recursive: true });
  removeStaleTempFiles(tempDir, PUT_FILE);
  const fileOf = (key: string) => path.join(root, checkKey(key));

  /** Streams `body` into a temporary file; renaming it to `key` is the caller's `publish`. */
  async function stageFile(key: string, body: Readable): Promise<StagedBlob> {
    const target = fileOf(key);
    const temp = path.join(tempDir, tempFileName(PUT_FILE));
    try {
      await pipeline(body, fs.createWriteStream(temp, { highWaterMark: READ_CHUNK }));
    } catch (error) {
      await fs.promises.rm(temp, { force: true });
      throw error;
    }
    let settled = false;
    return {
      async publish() {
        if (settled) throw new Error('staged blob already published or discarded');
        await fs.promises.mkdir(path.dirname(target), { recursive: true });
        await fs.promises.rename(temp, target);
        settled = true;
      },
      async discard() {
        if (settled) return;
        settled = true;
        await fs.promises.rm(temp, { force: true });
      },
    };
  }

  async function writeAtomically(key: string, body: Readable): Promise<void> {
    const staged = await stageFile(key, body);
    try {
      await staged.publish();
    } finally {
      await staged.discard();
    }
  }

  async function concatenationOf(key: string): Promise<Concatenation | null> {
    const text = await fs.promises.readFile(fileOf(key) + CONCAT_SUFFIX, 'utf8').catch(() => null);
    return text === null ? null : (JSON.parse(text) as Concatenation);
  }

  async function openFile(key: string, range?: ByteRange): Promise<Readable | null> {
    const handle = await fs.promises.open(fileOf(key), 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    return handle?.createReadStream({ start: range?.start, end: range?.end, highWaterMark: READ_CHUNK }) ?? null;
  }

  /** The bytes of a concatenation in `range`, reading only the sources it overlaps. */
  async function* readConcatenation(concatenation: Concatenation, range: ByteRange): AsyncGenerator<Buffer> {
    let offset = 0;
    for (const source of concatenation.sources) {
      const start = Math.max(range.start, offset);
      const end = Math.min(range.end, offset + source.size - 1);
      if (start <= end) {
        const stream = await openFile(source.key, { start: start - offset, end: end - offset });
        if (!stream) throw new BlobNotFound(source.key);
        yield* stream as AsyncIterable<Buffer>;
      }
      offset += source.size;
    }
  }

  const totalOf = (concatenation: Concatenation) => concatenation.sources.reduce((sum, s) => sum + s.size, 0);

  return {
    kind: 'filesystem',

    put: (key, body) => writeAtomically(key, body),

    stage: (key, body) => stageFile(key, body),

    async get(key, range?: ByteRange) {
      // Opened first, so a missing object is a BlobNotFound now rather than a stream error later.
      const file = await openFile(key, range);
      if (file) return file;
      const concatenation = await concatenationOf(key);
      if (!concatenation) throw new BlobNotFound(key);
      const whole = { start: 0, end: totalOf(concatenation) - 1 };
      return Readable.from(readConcatenation(concatenation, range ?? whole), { objectMode: false });
    },

    async size(key) {
      const stat = await fs.promises.stat(fileOf(key)).catch(() => null);
      if (stat?.isFile()) return stat.size;
      const concatenation = await concatenationOf(key);
      return concatenation ? totalOf(concatenation) : null;
    },

    async delete(key) {
      await fs.promises.rm(fileOf(key), { force: true });
      await fs.promises.rm(fileOf(key) + CONCAT_SUFFIX, { force: true });
    },

    async concat(target, sources) {
      const listed: Concatenation = { sources: [] };
      for (const key of sources) {
        const stat = await fs.promises.stat(fileOf(key)).catch(() => null);
        if (!stat?.isFile()) throw new BlobNotFound(key);
        listed.sources.push({ key, size: stat.size });
      }
      await writeAtomically(checkKey(target) + CONCAT_SUFFIX, Readable.from([Buffer.from(JSON.stringify(listed))]));
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
