/**
 * The `file` installer: copies the binary to `canopy.file.path` atomically (a temp file beside
 * the target, fsync, chmod, rename, fsync of the directory), so a power cut leaves either the old
 * file or the new one, never half of one. Running it again after an interruption is harmless.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { InstallContext, InstallOutcome, Installer } from './installer.ts';

/** Writes `source` to `target` atomically with `mode`. Shared with the simulator's installer. */
export async function writeFileAtomically(source: string, target: string, mode: number, signal: AbortSignal): Promise<void> {
  const dir = path.dirname(target);
  await fs.mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${path.basename(target)}.canopy-tmp`);
  try {
    const input = await fs.open(source, 'r');
    const output = await fs.open(temp, 'w', 0o600);
    try {
      await pipeline(input.createReadStream(), output.createWriteStream(), { signal });
      // The streams closed their handles; reopen to fsync the data before it replaces the target.
    } finally {
      await input.close().catch(() => {});
      await output.close().catch(() => {});
    }
    const written = await fs.open(temp, 'r+');
    try {
      await written.chmod(mode);
      await written.sync();
    } finally {
      await written.close();
    }
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export const fileInstaller: Installer = {
  name: 'file',
  deltaBases: (metadata) => (metadata.file ? [metadata.file.path] : []),
  async install({ file, metadata, log, signal }: InstallContext): Promise<InstallOutcome> {
    const target = metadata.file!;
    await writeFileAtomically(file, target.path, target.mode, signal);
    log.info('file installed', { path: target.path, mode: target.mode.toString(8) });
    return { rebootRequired: metadata.reboot_required };
  },
};
