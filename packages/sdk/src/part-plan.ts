/**
 * How a file is cut into binary parts, and its hashes, computed in one streaming pass so a
 * multi-gigabyte file is never held in memory. Parts are 5 MiB..5 GiB except the last, and at
 * most 10,000 (api-contract.md section 3).
 */
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';

export const MIN_PART_SIZE = 5 * 1024 * 1024;
export const MAX_PART_SIZE = 5 * 1024 * 1024 * 1024;
export const MAX_PARTS = 10_000;
export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;

export interface PlannedPart {
  /** 1-based, as the API numbers parts. */
  index: number;
  offset: number;
  size: number;
  /** Lowercase hex SHA-256 of the part's bytes. */
  hash: string;
  /** Base64 of the same digest, for `x-amz-checksum-sha256`. */
  checksumBase64: string;
}

export interface FilePlan {
  path: string;
  size: number;
  /** Lowercase hex SHA-256 of the whole file. */
  hash: string;
  partSize: number;
  parts: PlannedPart[];
}

export function choosePartSize(fileSize: number, requested = DEFAULT_PART_SIZE): number {
  if (requested < MIN_PART_SIZE || requested > MAX_PART_SIZE) throw new RangeError(`part size must be between ${MIN_PART_SIZE} and ${MAX_PART_SIZE} bytes`);
  // Grow the part size for huge files rather than exceed the part count limit.
  return Math.max(requested, Math.ceil(fileSize / MAX_PARTS));
}

export async function planFile(path: string, requestedPartSize?: number): Promise<FilePlan> {
  const size = (await fs.promises.stat(path)).size;
  const partSize = choosePartSize(size, requestedPartSize);
  const whole = createHash('sha256');
  const parts: PlannedPart[] = [];
  let partHash: Hash = createHash('sha256');
  let partStart = 0;
  let partFilled = 0;

  const closePart = () => {
    const digest = partHash.digest();
    parts.push({ index: parts.length + 1, offset: partStart, size: partFilled, hash: digest.toString('hex'), checksumBase64: digest.toString('base64') });
    partStart += partFilled;
    partFilled = 0;
    partHash = createHash('sha256');
  };

  for await (const chunk of fs.createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    whole.update(chunk);
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(partSize - partFilled, chunk.length - at);
      partHash.update(chunk.subarray(at, at + take));
      partFilled += take;
      at += take;
      if (partFilled === partSize) closePart();
    }
  }
  // The last (short) part, or the single empty part of an empty file.
  if (partFilled > 0 || parts.length === 0) closePart();
  return { path, size, hash: whole.digest('hex'), partSize, parts };
}

export async function readPart(path: string, part: PlannedPart): Promise<Buffer> {
  const handle = await fs.promises.open(path, 'r');
  try {
    const buffer = Buffer.alloc(part.size);
    let read = 0;
    while (read < part.size) {
      const { bytesRead } = await handle.read(buffer, read, part.size - read, part.offset + read);
      if (bytesRead === 0) throw new Error(`${path} changed while uploading (short read at part ${part.index})`);
      read += bytesRead;
    }
    return buffer;
  } finally {
    await handle.close();
  }
}
