/**
 * The `swupdate` installer: runs `swupdate -i <file>` (with `-f /etc/swupdate.cfg` when the
 * device has one: its public key, hardware revision file and handlers are SWUpdate's own
 * configuration). SWUpdate checks the signed sw-description, the hardware compatibility and
 * every image's hash, and writes where the .swu says; its log lines give the progress. A .swu
 * that switches the boot slot (reboot_required) leaves a trial record; after the reboot
 * `confirm` runs the health check and, with a `uboot_environment` configured, answers U-Boot's
 * boot counting (upgrade_available, bootcount, bootlimit): pass clears the trial, failure sets
 * bootcount to bootlimit and reboots, so U-Boot runs altbootcmd (the old slot).
 */
import fs from 'node:fs';
import type { DaemonConfig } from '../config/types.ts';
import { locationsFromConfig, openEnvironment } from '../uboot-env/index.ts';
import { runHealthCheck } from './avocado-ab.ts';
import type { ConfirmContext, ConfirmOutcome, InstallContext, InstallOutcome, Installer } from './installer.ts';
import { clearFrameworkTrial, frameworkTrialPending, readFrameworkTrial, writeFrameworkTrial } from './trial-record.ts';
import { lastComplaint, onPath, run } from './tools.ts';

export interface SwupdateInstallerOptions {
  /** Arguments before `-i`; default `-f /etc/swupdate.cfg` when that file exists. */
  args?: string[];
}

/** SWUpdate's log lines that mark its steps, as a fraction of the install. */
const STEPS: [RegExp, number][] = [
  [/Software Update started/, 0.05],
  [/Verified OK/, 0.2],
  [/Hardware compatibility verified/, 0.3],
  [/Installation in progress/, 0.5],
  [/SWUPDATE successful/, 1],
];

export function swupdateProgress(line: string): { fraction: number; step: string } | null {
  const step = STEPS.find(([pattern]) => pattern.test(line));
  return step ? { fraction: step[1], step: line.replace(/^\[\w+\s*\]\s*:\s*/, '').trim() } : null;
}

/** SWUpdate's first error message, which names the cause (later ones say only that it failed). */
export function swupdateError(output: string): string | null {
  const line = output.split('\n').find((l) => l.startsWith('[ERROR]'));
  return line ? line.replace(/^\[ERROR\]\s*:\s*SWUPDATE failed \[\d+\]\s*/, '').trim() : null;
}

export function createSwupdateInstaller(options: SwupdateInstallerOptions = {}): Installer {
  const args = () => options.args ?? (fs.existsSync('/etc/swupdate.cfg') ? ['-f', '/etc/swupdate.cfg'] : []);

  async function install({ file, entry, metadata, log, signal, stateDir, bootId, progress }: InstallContext): Promise<InstallOutcome> {
    const pending = await readFrameworkTrial(stateDir);
    if (pending && pending.hash !== entry.hash) throw new Error('a trial boot of an earlier SWUpdate image is pending; it must be confirmed or rolled back first');
    log.info('swupdate installing image', { args: args() });
    const result = await run('swupdate', [...args(), '-v', '-i', file], {
      signal,
      onLine: (line) => {
        const step = swupdateProgress(line);
        if (step) progress?.(step.fraction, step.step);
      },
    });
    if (result.code !== 0) {
      const reason = swupdateError(`${result.stdout}\n${result.stderr}`) ?? lastComplaint(result);
      throw new Error(`swupdate failed (exit ${result.code}): ${reason}`.slice(0, 1000));
    }
    if (metadata.reboot_required) {
      await writeFrameworkTrial(stateDir, { from: 'current', to: 'updated', hash: entry.hash, binary_prn: entry.binary_prn, ...(bootId ? { boot_id: bootId } : {}) });
    }
    log.info('swupdate installed image', { reboot: metadata.reboot_required });
    return { rebootRequired: metadata.reboot_required };
  }

  async function confirm({ config, log, signal, stateDir }: ConfirmContext): Promise<ConfirmOutcome> {
    const record = await readFrameworkTrial(stateDir);
    if (!record) return { result: 'confirmed' };
    const health = config.health_check ? await runHealthCheck(config.health_check, 'swupdate', config.install_timeout, signal) : ({ ok: true } as const);
    const env = config.uboot_environment ? openEnvironment(locationsFromConfig(config.uboot_environment.copies)) : null;
    if (health.ok) {
      await env?.update({ upgrade_available: '0', bootcount: '0' });
      await clearFrameworkTrial(stateDir);
      log.info('swupdate health check passed', { health_check: config.health_check ?? null, uboot: env !== null });
      return { result: 'confirmed' };
    }
    if (env) {
      const limit = (await env.read()).variables.get('bootlimit');
      if (limit !== undefined && /^\d+$/.test(limit)) await env.update({ bootcount: limit });
    }
    await clearFrameworkTrial(stateDir);
    log.warn('swupdate health check failed: rebooting so the bootloader falls back', { reason: health.reason });
    return { result: 'rolled_back', reason: `health_check_failed: ${health.reason}`, rebootRequired: true };
  }

  return {
    name: 'swupdate',
    unavailable: (_config: DaemonConfig) => (onPath('swupdate') ? null : 'swupdate needs the swupdate tool on the device\'s PATH'),
    install,
    confirm,
    trialPending: (_config, stateDir, bootId) => frameworkTrialPending(stateDir, bootId),
  };
}

export const swupdateInstaller = createSwupdateInstaller();
