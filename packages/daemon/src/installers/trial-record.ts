/**
 * The record a framework installer (rauc, swupdate) keeps in its state dir between `install` and
 * the `confirm` after the reboot: which slot ran, which one the framework made primary, the
 * image, and the boot it was written in (to tell the reboot from a restart of the daemon alone).
 * Written atomically; a torn or missing file reads as no trial.
 */
import { syncDirectory } from '../fs/atomic-write.ts';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface FrameworkTrial {
  from: string;
  to: string;
  hash: string;
  binary_prn: string;
  boot_id?: string;
}

const FILE = 'trial.json';

export async function readFrameworkTrial(stateDir: string): Promise<FrameworkTrial | null> {
  try {
    const record = JSON.parse(await fs.readFile(path.join(stateDir, FILE), 'utf8')) as FrameworkTrial;
    return typeof record.from === 'string' && typeof record.to === 'string' && typeof record.hash === 'string' ? record : null;
  } catch {
    return null;
  }
}


export async function writeFrameworkTrial(stateDir: string, record: FrameworkTrial): Promise<void> {
  await fs.mkdir(stateDir, { recursive: true });
  const target = path.join(stateDir, FILE);
  const handle = await fs.open(`${target}.tmp`, 'w', 0o600);
  try {
    await handle.writeFile(JSON.stringify(record));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(`${target}.tmp`, target);
  await syncDirectory(stateDir);
}

export async function clearFrameworkTrial(stateDir: string): Promise<void> {
  await fs.rm(path.join(stateDir, FILE), { force: true });
  await syncDirectory(stateDir).catch(() => undefined);
}

/** Whether a trial waits for confirm: recorded, and not in this same boot (only a restart). */
export async function frameworkTrialPending(stateDir: string, bootId?: string): Promise<boolean> {
  const record = await readFrameworkTrial(stateDir);
  return record !== null && (bootId === undefined || record.boot_id !== bootId);
}
