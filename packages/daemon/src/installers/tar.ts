/**
 * The `tar` installer: unpacks the archive into a fresh directory beside `canopy.tar.path`, then
 * makes `tar.path` a symlink to it with one rename, so readers see the old tree or the new one,
 * never a mix. Layout for tar.path /opt/app: /opt/.app.canopy/<first 16 hex of the SHA-256>/ holds
 * each tree, /opt/app -> .app.canopy/<id>. After the switch the older trees are removed.
 * Re-running after a power cut is safe: a half-unpacked staging directory is removed and redone,
 * and a tree already switched to is recognised by its name.
 */
import { syncDirectory } from '../fs/atomic-write.ts';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { InstallContext, InstallOutcome, Installer } from './installer.ts';
import { extractArchive } from './tar-extract.ts';


/** Where the trees of `target` live: a hidden directory beside it. */
export function treesDirOf(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.canopy`);
}

/** Points `target` at `tree` (relative to target's directory) with one rename. */
async function switchLink(target: string, tree: string): Promise<void> {
  const dir = path.dirname(target);
  const current = await fs.lstat(target).catch(() => null);
  if (current && !current.isSymbolicLink()) {
    if (!current.isDirectory()) throw new Error(`${target} exists and is not a directory or symlink; refusing to replace it`);
    // First install over a plain directory: it moves into the trees directory (two renames, once).
    await fs.rename(target, path.join(treesDirOf(target), 'previous'));
  }
  const temp = path.join(dir, `.${path.basename(target)}.canopy-link`);
  await fs.rm(temp, { force: true });
  await fs.symlink(path.relative(dir, tree), temp);
  await fs.rename(temp, target);
  await syncDirectory(dir);
}

async function install({ file, entry, metadata, log, signal }: InstallContext): Promise<InstallOutcome> {
  const settings = metadata.tar!;
  const target = settings.path;
  const trees = treesDirOf(target);
  const id = entry.hash.toLowerCase().slice(0, 16);
  const tree = path.join(trees, id);
  await fs.mkdir(trees, { recursive: true, mode: 0o755 });
  const linked = await fs.readlink(target).catch(() => null);
  if (linked === null || path.resolve(path.dirname(target), linked) !== tree) {
    const staging = `${tree}.staging`;
    await fs.rm(staging, { recursive: true, force: true });
    await fs.rm(tree, { recursive: true, force: true });
    await fs.mkdir(staging, { mode: 0o700 });
    try {
      const { entries } = await extractArchive(file, staging, settings, signal);
      log.info('tar archive unpacked', { staging, entries });
    } catch (error) {
      await fs.rm(staging, { recursive: true, force: true });
      throw error;
    }
    await fs.rename(staging, tree);
    await syncDirectory(trees);
    signal.throwIfAborted();
    await switchLink(target, tree);
  }
  for (const name of await fs.readdir(trees)) {
    if (name !== id) await fs.rm(path.join(trees, name), { recursive: true, force: true });
  }
  log.info('tar installed', { path: target, tree });
  return { rebootRequired: metadata.reboot_required };
}

export const tarInstaller: Installer = { name: 'tar', install };
