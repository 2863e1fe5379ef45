/**
 * The data directory holds the database (password hashes, secrets), the secret key and the device
 * API's CA key: no one but the server's user may read it. New files are kept private by the
 * process umask the entry points set (main.ts, admin-cli.ts); makePrivate repairs what is already
 * there, including the files PGlite's first start writes with mode 0666 whatever the umask.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Files 0600 and directories 0700 for everything the process creates. */
export const PRIVATE_UMASK = 0o077;

export interface PrivateResult {
  /** Entries whose mode was changed. */
  changed: number;
  /** Entries that could not be changed (path: error code). */
  failed: string[];
}

/**
 * Takes group and other access away from `root` and everything under it: directories become
 * 0700, files lose their group and other bits. Symbolic links are neither changed nor followed.
 */
export function makePrivate(root: string, result: PrivateResult = { changed: 0, failed: [] }): PrivateResult {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(root);
  } catch (error) {
    noteFailure(result, root, error);
    return result;
  }
  if (!stat.isDirectory() && !stat.isFile()) return result;
  const mode = stat.mode & 0o7777;
  const wanted = stat.isDirectory() ? 0o700 : mode & ~0o077;
  if (mode !== wanted) {
    try {
      fs.chmodSync(root, wanted);
      result.changed++;
    } catch (error) {
      noteFailure(result, root, error);
    }
  }
  if (stat.isDirectory()) {
    let entries: string[] = [];
    try {
      entries = fs.readdirSync(root);
    } catch (error) {
      noteFailure(result, root, error);
    }
    for (const entry of entries) makePrivate(path.join(root, entry), result);
  }
  return result;
}

/** A file removed while we walk (a WAL segment recycled) is nothing to repair. */
function noteFailure(result: PrivateResult, file: string, error: unknown): void {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'ENOENT') result.failed.push(`${file}: ${code ?? String(error)}`);
}
