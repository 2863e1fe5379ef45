/** SHA-256 of a file, streamed (a firmware image need not fit in memory). */
import { createHash } from 'node:crypto';
import fs from 'node:fs';

export async function sha256File(file: string, signal?: AbortSignal): Promise<{ hash: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024, signal })) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { hash: hash.digest('hex'), size };
}
