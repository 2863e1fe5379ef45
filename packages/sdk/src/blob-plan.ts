/**
 * The part plan of a browser Blob (a File the user picked), with the same rule as the Node
 * planner (part-sizes.ts) and no Node modules. WebCrypto has no incremental SHA-256, and the
 * whole file's hash must not need the file in memory, so the digests are @noble/hashes'
 * (streaming, pure JS), fed 1 MiB slices read one at a time.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { choosePartSize, type PartPlan, type PlannedPart } from './part-sizes';

const SLICE = 1024 * 1024;

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

export interface BlobPlanOptions {
  partSize?: number;
  /** Called after each slice with the bytes hashed so far. */
  onProgress?: (hashedBytes: number) => void;
  signal?: AbortSignal;
}

export async function planBlob(blob: Blob, options: BlobPlanOptions = {}): Promise<PartPlan> {
  const size = blob.size;
  const partSize = choosePartSize(size, options.partSize);
  const whole = sha256.create();
  const parts: PlannedPart[] = [];
  for (let offset = 0; offset < size || parts.length === 0; offset += partSize) {
    const partBytes = Math.min(partSize, size - offset);
    const partHash = sha256.create();
    for (let at = offset; at < offset + partBytes; at += SLICE) {
      options.signal?.throwIfAborted();
      const chunk = new Uint8Array(await blob.slice(at, Math.min(at + SLICE, offset + partBytes)).arrayBuffer());
      whole.update(chunk);
      partHash.update(chunk);
      options.onProgress?.(at + chunk.length);
    }
    const digest = partHash.digest();
    parts.push({ index: parts.length + 1, offset, size: partBytes, hash: hex(digest), checksumBase64: base64(digest) });
    if (size === 0) break;
  }
  return { size, hash: hex(whole.digest()), partSize, parts };
}

/** One part's bytes, read from the Blob when it is sent. */
export async function readBlobPart(blob: Blob, part: PlannedPart): Promise<Uint8Array> {
  return new Uint8Array(await blob.slice(part.offset, part.offset + part.size).arrayBuffer());
}
