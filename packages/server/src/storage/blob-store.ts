/**
 * Where binaries' bytes live. Two implementations share this interface: files under
 * CANOPY_DATA_DIR (filesystem.ts) and an S3-compatible bucket (s3.ts). Everything streams: no
 * method ever holds a whole object in memory.
 *
 * Keys are slash-separated paths of safe characters (see checkKey); `put` is all-or-nothing, so a
 * reader sees either the previous object or the complete new one, never a half-written one.
 * `stage` splits a put in two: the bytes are stored aside first, and land under their key only
 * when the caller publishes them (after its own checks), so a refused write changes nothing.
 */
import type { Readable } from 'node:stream';

/** Inclusive byte range, as HTTP Range gives it. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStore {
  readonly kind: 'filesystem' | 's3';
  /** Stores everything `body` yields under `key`; `sizeHint` (bytes) lets S3 pick a part size. */
  put(key: string, body: Readable, sizeHint?: number): Promise<void>;
  /**
   * Stores everything `body` yields aside, not yet under `key`: `publish` then makes it `key`'s
   * object (replacing any earlier one at once), `discard` drops it. Nothing under `key` changes
   * until `publish`. A staged object of a process that died is swept like a failed put.
   */
  stage(key: string, body: Readable, sizeHint?: number): Promise<StagedBlob>;
  /** The object's bytes (or one range of them); BlobNotFound when there is no such object. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Size in bytes, or null when there is no such object. */
  size(key: string): Promise<number | null>;
  delete(key: string): Promise<void>;
  /**
   * Makes `target` read as the `sources` one after another (`size` bytes in all). The
   * filesystem store records the list and reads through it (no copy); S3 streams a copy.
   * The sources must then stay until `target` is deleted.
   */
  concat(target: string, sources: string[], size: number): Promise<void>;
  /** Deletes every object whose key starts with `prefix` (which should end in `/`). */
  deletePrefix(prefix: string): Promise<void>;
  /**
   * A URL the client PUTs exactly `size` bytes to, or null when the store has none of its own
   * and the server must serve the upload itself (the filesystem store).
   */
  presignUpload(key: string, size: number, ttlSeconds: number): Promise<string | null>;
  /** A GET URL for the object, or null when the server serves downloads itself. */
  presignDownload(key: string, ttlSeconds: number): Promise<string | null>;
}

export interface StagedBlob {
  publish(): Promise<void>;
  /** Drops the staged bytes; a no-op once published or discarded. */
  discard(): Promise<void>;
}

export class BlobNotFound extends Error {
  constructor(readonly key: string) {
    super(`no blob at ${key}`);
    this.name = 'BlobNotFound';
  }
}

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Keys come from our own ids, but a key is also a file path: refuse anything that could escape. */
export function checkKey(key: string): string {
  if (!SAFE_KEY.test(key) || key.split('/').some((segment) => segment === '..' || segment === '.')) {
    throw new Error(`unsafe blob key: ${key}`);
  }
  return key;
}
