/** Runs `reboot_command` (default `systemctl reboot`); resolves once it exits 0. */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';

/**
 * The kernel's id of this boot (a new random UUID at every boot), which the update loop records
 * before a reboot to tell the boot after it from a restart of the daemon alone (update/state.ts).
 * CANOPY_DAEMON_BOOT_ID_FILE names another file to read instead: the tests' "reboots" are daemon
 * restarts, so they change the id they hand it. Undefined when there is none (not Linux).
 */
export async function readBootId(file = process.env.CANOPY_DAEMON_BOOT_ID_FILE || '/proc/sys/kernel/random/boot_id'): Promise<string | undefined> {
  try {
    const id = (await fs.readFile(file, 'utf8')).trim();
    return id || undefined;
  } catch {
    return undefined;
  }
}

export function runRebootCommand(argv: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
    child.on('error', (error) => reject(new Error(`reboot command could not start: ${error.message}`)));
    child.on('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`reboot command exited with ${code ?? signal}`))));
  });
}
