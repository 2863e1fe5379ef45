/**
 * A pass-through stream that counts and SHA-256-hashes the bytes going by, and refuses to pass
 * more than `limit + 1` bytes: one byte past the declared size proves the body too long, and
 * nothing after it is read.
 */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

export class BodyTooLong extends Error {
  constructor(readonly limit: number) {
    super(`body longer than ${limit} bytes`);
    this.name = 'BodyTooLong';
  }
}

export class Meter extends Transform {
  bytes = 0;
  private readonly hash = createHash('sha256');

  constructor(private readonly limit: number) {
    super({ highWaterMark: 1024 * 1024 });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.bytes + chunk.length > this.limit) {
      this.bytes = this.limit + 1;
      callback(new BodyTooLong(this.limit));
      return;
    }
    this.bytes += chunk.length;
    this.hash.update(chunk);
    callback(null, chunk);
  }

  /** Lowercase hex SHA-256 of everything that passed; call once, after the end. */
  digest(): Buffer {
    return this.hash.digest();
  }
}
