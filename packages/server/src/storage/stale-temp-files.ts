/**
 * Temporary files named after the process that writes them, so that a process starting on a
 * data directory removes only what dead processes left behind. Two servers may share one data
 * directory (issue 32's two-process run does); wiping the temporary folder at start would delete
 * the other one's uploads in progress.
 *
 * At start, a file of a process that no longer runs is removed at once, and so is one of our own
 * id (a previous process's: a container's server is pid 1 after every restart). Files without an
 * id, or of a process that still runs, go once they are a day old. Process ids are this host's:
 * the folders swept here are local, never shared between hosts.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const STALE_MS = 24 * 3600_000;
const UUID = '[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}';

export interface TempFileKind {
  prefix: string;
  suffix: string;
}

/** A new temporary file name of `kind` carrying this process's id. */
export function tempFileName(kind: TempFileKind): string {
  return `${kind.prefix}${process.pid}-${randomUUID()}${kind.suffix}`;
}

function processRuns(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the temporary files of `kind` in `dir` that dead processes left (call at start). */
export function removeStaleTempFiles(dir: string, kind: TempFileKind, now = Date.now()): void {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const owned = new RegExp(`^${escape(kind.prefix)}(\\d+)-${UUID}${escape(kind.suffix)}$`);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(kind.prefix) || !name.endsWith(kind.suffix)) continue;
    const file = path.join(dir, name);
    const owner = owned.exec(name)?.[1];
    const dead = owner !== undefined && !processRuns(Number(owner));
    const stat = dead ? null : fs.statSync(file, { throwIfNoEntry: false });
    if (dead || (stat && now - stat.mtimeMs > STALE_MS)) fs.rmSync(file, { force: true });
  }
}
