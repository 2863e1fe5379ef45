/**
 * Downloads one manifest entry into the download dir, resumably: bytes go to `<sha256>.part`,
 * and a later attempt (after a lost connection, a restart or a power cut) asks only for the rest
 * with an HTTP Range request, hashing what is already on disk first. Size and SHA-256 are checked
 * while streaming: a byte past the declared size stops the transfer before it is written, and the finished
 * file is renamed to `<sha256>.bin` only when both match. A mismatch deletes the partial file
 * (its bytes cannot be trusted to resume from); a lost connection keeps it.
 *
 * Files are named by hash, so a new download URL for the same binary (URLs expire after 24 h)
 * resumes the same partial file.
 */
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tls from 'node:tls';
import type { ManifestEntry } from '@canopy/sdk/device';

/** Why a download stopped: `integrity` failures are never retried from the same bytes. */
export class DownloadError extends Error {
  constructor(
    message: string,
    readonly kind: 'integrity' | 'transfer',
  ) {
    super(message);
    this.name = 'DownloadError';
  }
}

export interface DownloadOptions {
  dir: string;
  signal: AbortSignal;
  /** Extra CA for https download URLs (the server CA), trusted beside the system store. */
  caPem?: Buffer;
  /** Called as bytes arrive (checked, queued for the disk), with the bytes received so far. */
  onProgress?: (bytes: number) => void;
  /** Called before asking for the rest of a partial file, with the bytes already on disk. */
  onResume?: (offset: number) => void;
  /** No byte for this long fails the transfer; default 60 s. */
  idleTimeoutMs?: number;
}

/** Bytes queued for the disk before the socket is paused (the sink's highWaterMark). */
const WRITE_QUEUE_BYTES = 1 << 20;

/**
 * Bytes gathered before they go to the disk in one write. A TLS record is 16 KiB at most, and
 * on a loaded machine the socket hands over one or two at a time: written as they came, each
 * write was a trip through libuv's threadpool for 16-32 KiB (bench/daemon.ts: 10 ms of CPU per
 * MiB against curl's 3.2 at load 30). Bytes held here when a transfer breaks are fetched again.
 */
const WRITE_BATCH_BYTES = 256 << 10;

/**
 * Bytes written between two flushes to the disk (fdatasync) started while the transfer goes on.
 * The finished file is fsynced before it is renamed; without these, that one fsync flushed the
 * whole file after the last byte arrived (190-250 ms for 256 MiB on the loaded test machine, a
 * fifth of the download), while the socket sat idle. With them, it finds at most this much left.
 * A power cut also loses at most this much of a partial file to resume from.
 */
const FLUSH_EVERY_BYTES = 16 << 20;

/** Writes every byte of `buffers` at the file's end, in order (a writev may write only part). */
async function appendAll(handle: fsp.FileHandle, buffers: Buffer[]): Promise<void> {
  let pending = buffers;
  while (pending.length > 0) {
    let { bytesWritten } = await handle.writev(pending);
    while (pending.length > 0 && bytesWritten >= pending[0].length) {
      bytesWritten -= pending[0].length;
      pending = pending.slice(1);
    }
    if (bytesWritten > 0) pending = [pending[0].subarray(bytesWritten), ...pending.slice(1)];
  }
}

/**
 * The one stream the response is piped into: each chunk is checked against the declared size and
 * hashed as it comes, then held until WRITE_BATCH_BYTES are, which go down in one writev to the
 * partial file without being copied into one buffer. Chunks that arrive while a write runs are
 * queued by the stream, and the rest is written when the response ends.
 *
 * Why one sink and not a checking Transform before a file Writable (as before): every chunk (a
 * TLS record, 16 KiB at most) then went through two streams, and the stream machinery cost as
 * much as the hashing (bench/daemon.ts: 0.76x curl with the Transform).
 */
class CheckedFileSink extends Writable {
  /** Bytes of the binary on disk or queued for it, counting those before `offset`. */
  written: number;
  /** Bytes written since the last flush started, and the flush under way (one at a time). */
  private unflushed = 0;
  private flushing: Promise<void> | null = null;
  /** Checked bytes not yet handed to the disk (fewer than WRITE_BATCH_BYTES between writes). */
  private held: Buffer[] = [];
  private heldBytes = 0;

  constructor(
    private readonly handle: fsp.FileHandle,
    private readonly size: number,
    private readonly hash: Hash,
    offset: number,
    private readonly onProgress?: (bytes: number) => void,
  ) {
    super({ highWaterMark: WRITE_QUEUE_BYTES });
    this.written = offset;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.take([chunk], done);
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, done: (error?: Error | null) => void): void {
    this.take(chunks.map((c) => c.chunk), done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.writeHeld(done);
  }

  private take(buffers: Buffer[], done: (error?: Error | null) => void): void {
    for (const buffer of buffers) {
      if (this.written + buffer.length > this.size) return done(new DownloadError(`binary is larger than its declared size ${this.size}`, 'integrity'));
      this.hash.update(buffer);
      this.written += buffer.length;
      this.held.push(buffer);
      this.heldBytes += buffer.length;
    }
    this.onProgress?.(this.written);
    if (this.heldBytes < WRITE_BATCH_BYTES) return done();
    this.writeHeld(done);
  }

  /** Appends the held bytes in one writev. */
  private writeHeld(done: (error?: Error | null) => void): void {
    if (this.heldBytes === 0) return done();
    const [buffers, bytes] = [this.held, this.heldBytes];
    this.held = [];
    this.heldBytes = 0;
    appendAll(this.handle, buffers).then(() => {
      this.unflushed += bytes;
      this.flushInBackground();
      done();
    }, done);
  }

  /** Starts an fdatasync of what was written so far, unless one runs or too little is new. */
  private flushInBackground(): void {
    if (this.flushing || this.unflushed < FLUSH_EVERY_BYTES) return;
    this.unflushed = 0;
    // A failed flush is not an error here: the final fsync flushes everything again and reports it.
    this.flushing = this.handle.datasync().then(
      () => {
        this.flushing = null;
      },
      () => {
        this.flushing = null;
      },
    );
  }

  /** Resolves once no background flush is under way (before the final fsync or the close). */
  async flushed(): Promise<void> {
    await this.flushing;
  }
}

export const finishedPath = (dir: string, entry: ManifestEntry) => path.join(dir, `${entry.hash.toLowerCase()}.bin`);
const partialPath = (dir: string, entry: ManifestEntry) => path.join(dir, `${entry.hash.toLowerCase()}.part`);

async function sizeOf(file: string): Promise<number> {
  try {
    return (await fsp.stat(file)).size;
  } catch {
    return 0;
  }
}

async function hashPrefix(file: string, hash: Hash, signal: AbortSignal): Promise<void> {
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024, signal })) hash.update(chunk as Buffer);
}

function get(url: URL, headers: Record<string, string>, options: DownloadOptions): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null;
    if (!client) return reject(new DownloadError(`unsupported download URL scheme ${url.protocol}`, 'transfer'));
    const ca = url.protocol === 'https:' && options.caPem ? [...tls.rootCertificates, options.caPem.toString('utf8')] : undefined;
    const request = client.get(url, { headers, signal: options.signal, ...(ca ? { ca } : {}) }, resolve);
    request.setTimeout(options.idleTimeoutMs ?? 60_000, () => request.destroy(new DownloadError('download stalled', 'transfer')));
    request.on('error', (error) => reject(error instanceof DownloadError || options.signal.aborted ? error : new DownloadError(`download failed: ${error.message}`, 'transfer')));
  });
}

/** The path of the finished, size- and hash-checked file. */
export async function downloadEntry(entry: ManifestEntry, options: DownloadOptions): Promise<string> {
  const expectedHash = entry.hash.toLowerCase();
  const finished = finishedPath(options.dir, entry);
  if ((await sizeOf(finished)) === entry.size && fs.existsSync(finished)) return finished;
  await fsp.mkdir(options.dir, { recursive: true, mode: 0o700 });
  const partial = partialPath(options.dir, entry);

  let offset = await sizeOf(partial);
  if (offset > entry.size) {
    await fsp.rm(partial, { force: true });
    offset = 0;
  }
  let hash = createHash('sha256');
  if (offset > 0) await hashPrefix(partial, hash, options.signal);

  const headers: Record<string, string> = {};
  if (offset > 0) {
    headers.range = `bytes=${offset}-`;
    options.onResume?.(offset);
  }
  const response = await get(new URL(entry.url), headers, options);
  if (response.statusCode === 416 && offset === entry.size) {
    response.resume();
  } else {
    if (response.statusCode === 200 && offset > 0) {
      // The server ignored the range: start over from its first byte.
      offset = 0;
      hash = createHash('sha256');
    } else if (response.statusCode !== 200 && response.statusCode !== 206) {
      response.resume();
      throw new DownloadError(`download answered HTTP ${response.statusCode}`, 'transfer');
    }
    if (response.statusCode === 206) {
      const range = /^bytes (\d+)-/.exec(String(response.headers['content-range'] ?? ''));
      if (!range || Number(range[1]) !== offset) {
        response.resume();
        throw new DownloadError('download answered the wrong range', 'transfer');
      }
    }
    const out = await fsp.open(partial, offset === 0 ? 'w' : 'a', 0o600);
    const sink = new CheckedFileSink(out, entry.size, hash, offset, options.onProgress);
    try {
      // A stream pipeline, not one awaited write per TLS record: the socket keeps being read while
      // earlier bytes are written. Waiting on each 16 KiB write stalled the connection
      // (bench/daemon.ts: 0.27x curl before).
      await pipeline(response, sink);
      await sink.flushed();
      await out.sync();
    } catch (error) {
      await sink.flushed();
      if (error instanceof DownloadError) {
        response.destroy();
        await out.close().catch(() => {});
        await fsp.rm(partial, { force: true });
        throw error;
      }
      if (options.signal.aborted) throw error;
      throw new DownloadError(`download interrupted: ${(error as Error).message}`, 'transfer');
    } finally {
      await out.close().catch(() => {});
    }
    const written = sink.written;
    if (written !== entry.size) {
      if (response.complete) {
        // A whole answer of the wrong length: the stored binary is not the one declared.
        await fsp.rm(partial, { force: true });
        throw new DownloadError(`size mismatch: expected ${entry.size} bytes, got ${written}`, 'integrity');
      }
      // The connection ended early: keep the bytes, the next attempt resumes from them.
      throw new DownloadError(`download ended at ${written} of ${entry.size} bytes`, 'transfer');
    }
  }
  const actual = hash.digest('hex');
  if (actual !== expectedHash) {
    await fsp.rm(partial, { force: true });
    throw new DownloadError(`sha256 mismatch: expected ${expectedHash}, got ${actual}`, 'integrity');
  }
  await fsp.rename(partial, finished);
  return finished;
}
