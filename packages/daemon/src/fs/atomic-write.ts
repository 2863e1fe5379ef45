/**
 * Replaces a file so that a power cut at any moment leaves either the old content or the new,
 * never a mix: write a temp file beside it, fsync it, rename it over the target, fsync the
 * directory (so the rename itself is durable).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export async function writeFileAtomic(target: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${path.basename(target)}.${process.pid}.tmp`);
  const handle = await fs.open(temp, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

export async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
