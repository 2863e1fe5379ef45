/** Temporary directories of a test file (config dirs, certificates, upload files), removed when the file ends. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];

export function temporaryConfigDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-cli-test-'));
  made.push(dir);
  return dir;
}

export function removeTemporaryDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
