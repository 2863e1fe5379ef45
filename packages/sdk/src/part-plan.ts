/**
 * How a file on disk is cut into binary parts (the rule: part-sizes.ts), and its hashes, computed
 * in one streaming pass so a multi-gigabyte file is never held in memory. Node only: browsers
 * plan a Blob with blob-plan.ts.
 */
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import { choosePartSize, type PartPlan, type PlannedPart } from './part-sizes';

export { MIN_PART_SIZE, MAX_PART_SIZE, MAX_PARTS, DEFAULT_PART_SIZE, choosePartSize, type PlannedPart, type PartPlan } from './part-sizes';

export interface FilePlan extends PartPlan {
  path: string;
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
