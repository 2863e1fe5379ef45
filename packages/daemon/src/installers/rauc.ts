/**
 * The `rauc` installer: hands the bundle to the device's RAUC service (`rauc install`, which
 * talks to it over D-Bus), which checks the bundle's signature and compatible, writes the other
 * slot group and makes it primary. After the reboot `confirm` reads `rauc status
 * --output-format=json`: on the new slot, the health check decides `rauc status mark-good
 * booted`, or `mark-bad booted` plus `mark-active other` and a reboot back; on the old slot, the
 * bootloader fell back. The trial is recorded in the state dir (trial-record.ts).
 */
import type { DaemonConfig } from '../config/types.ts';
import { runHealthCheck } from './avocado-ab.ts';
import type { ConfirmContext, ConfirmOutcome, InstallContext, InstallOutcome, Installer } from './installer.ts';
import { clearFrameworkTrial, frameworkTrialPending, readFrameworkTrial, writeFrameworkTrial } from './trial-record.ts';
import { lastComplaint, onPath, run, runOrThrow } from './tools.ts';

export interface RaucStatus {
  booted: string;
  /** The primary slot's name (rootfs.1), or null when RAUC cannot tell. */
  boot_primary: string | null;
  slots: Record<string, { bootname?: string | null; state?: string; boot_status?: string; class?: string }>[];
}

/** The booted slot's bootname and the primary slot's bootname, from `rauc status` JSON. */
export function slotsOf(status: RaucStatus): { booted: string; primary: string | null } {
  const all = Object.assign({}, ...status.slots) as Record<string, { bootname?: string | null }>;
  const primary = status.boot_primary ? (all[status.boot_primary]?.bootname ?? null) : null;
  return { booted: status.booted, primary };
}

async function raucStatus(signal?: AbortSignal): Promise<RaucStatus> {
  const { stdout } = await runOrThrow('rauc status', 'rauc', ['status', '--output-format=json'], { signal });
  // RAUC prints its log messages before the JSON on some versions: take the last line.
  const json = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(json) as RaucStatus;
}

/** "NN% step" lines of `rauc install`, as a fraction and the step. */
export function raucProgress(line: string): { fraction: number; step: string } | null {
  const match = /^\s*(\d{1,3})%\s+(.*)$/.exec(line);
  return match ? { fraction: Number(match[1]) / 100, step: match[2] } : null;
}

async function install({ file, entry, log, signal, stateDir, bootId, progress }: InstallContext): Promise<InstallOutcome> {
  const before = slotsOf(await raucStatus(signal));
  const pending = await readFrameworkTrial(stateDir);
  if (pending) {
    // The same bundle, already made primary (the loop lost track before the reboot): same answer.
    if (pending.hash === entry.hash && before.primary === pending.to) {
      log.info('rauc bundle already installed; waiting for the reboot', { slot: pending.to });
      return { rebootRequired: true, slot: pending.to };
    }
    throw new Error(`a trial boot of slot ${pending.to} is pending; it must be confirmed or rolled back first`);
  }
  log.info('rauc installing bundle', { booted: before.booted });
  const result = await run('rauc', ['install', file], {
    signal,
    onLine: (line) => {
      const step = raucProgress(line);
      if (step) progress?.(step.fraction, step.step);
    },
  });
  if (result.code !== 0) {
    // RAUC's reason is its `LastError:` line; the last line only says the install failed.
    const reason = /LastError: (.*)/.exec(`${result.stdout}\n${result.stderr}`)?.[1] ?? lastComplaint(result);
    throw new Error(`rauc install failed (exit ${result.code}): ${reason}`.slice(0, 1000));
  }
  const after = slotsOf(await raucStatus(signal));
  if (!after.primary || after.primary === before.booted) throw new Error(`rauc installed the bundle but the primary slot is ${after.primary ?? 'unknown'}`);
  await writeFrameworkTrial(stateDir, { from: before.booted, to: after.primary, hash: entry.hash, binary_prn: entry.binary_prn, ...(bootId ? { boot_id: bootId } : {}) });
  log.info('rauc bundle installed; the next boot tries the new slot', { from: before.booted, to: after.primary });
  return { rebootRequired: true, slot: after.primary };
}

async function confirm({ config, log, signal, stateDir }: ConfirmContext): Promise<ConfirmOutcome & { rebootRequired?: boolean }> {
  const record = await readFrameworkTrial(stateDir);
  const { booted } = slotsOf(await raucStatus(signal));
  if (!record) return { result: 'confirmed', slot: booted };
  if (booted !== record.to) {
    await clearFrameworkTrial(stateDir);
    log.warn('rauc: the bootloader fell back to the old slot', { expected: record.to, booted });
    return { result: 'rolled_back', reason: 'boot_fell_back', slot: booted, rebootRequired: false };
  }
  const health = config.health_check ? await runHealthCheck(config.health_check, booted, config.install_timeout, signal) : ({ ok: true } as const);
  if (health.ok) {
    await runOrThrow('rauc status mark-good', 'rauc', ['status', 'mark-good', 'booted'], { signal });
    await clearFrameworkTrial(stateDir);
    log.info('rauc health check passed: booted slot marked good', { slot: booted });
    return { result: 'confirmed', slot: booted };
  }
  await runOrThrow('rauc status mark-bad', 'rauc', ['status', 'mark-bad', 'booted'], { signal });
  await runOrThrow('rauc status mark-active', 'rauc', ['status', 'mark-active', 'other'], { signal });
  await clearFrameworkTrial(stateDir);
  log.warn('rauc health check failed: booted slot marked bad, the other made primary', { slot: booted, reason: health.reason });
  return { result: 'rolled_back', reason: `health_check_failed: ${health.reason}`, slot: record.from, rebootRequired: true };
}

export const raucInstaller: Installer = {
  name: 'rauc',
  unavailable: (_config: DaemonConfig) => (onPath('rauc') ? null : 'rauc needs the rauc tool on the device\'s PATH'),
  install,
  confirm,
  trialPending: (_config, stateDir, bootId) => frameworkTrialPending(stateDir, bootId),
  async currentSlot() {
    if (!onPath('rauc')) return undefined;
    return raucStatus().then((status) => status.booted, () => undefined);
  },
};
