/**
 * The `avocado-ab` installer: the image goes to the inactive slot, the U-Boot environment switches
 * (or GRUB's grubenv) to it for a trial boot, and after the reboot `health_check` decides whether it stays. The trial
 * protocol shared with the boot script, and the decisions taken where the docs are silent, are in
 * avocado-ab-trial.ts; the docs page is uboot-environment/overview.md.
 *
 * Configuration read: `avocado_ab.slots.a` / `.b` (the two slot devices, or files in tests),
 * `uboot_environment` or `grub_environment` (boot-env/), `health_check`, `install_timeout`.
 *
 * Safe to re-run after a power cut at any step:
 * - the inactive slot is rewritten from the start and read back against the manifest's SHA-256
 *   before anything points at it;
 * - the trial record (trial.json in the installer's state dir) is written atomically before the
 *   environment switches, and removed only after the environment says how the trial ended;
 * - a re-run of the install whose trial already started (same image, slot already switched)
 *   answers as the first run did instead of overwriting the slot the device may be running.
 */
import { syncDirectory } from '../fs/atomic-write.ts';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DaemonConfig } from '../config/types.ts';
import { bootEnvironmentProblem, openBootEnvironment, type BootEnvironment } from '../boot-env/boot-environment.ts';
import {
  activeSlot,
  DEFAULT_VARIABLE_NAMES,
  fallBackChanges,
  makePermanentChanges,
  onTrial,
  otherSlot,
  startTrialChanges,
  trialState,
  type Slot,
  type TrialRecord,
  type TrialVariableNames,
} from './avocado-ab-trial.ts';
import type { ConfirmContext, ConfirmOutcome, InstallContext, InstallOutcome, Installer } from './installer.ts';

const TRIAL_FILE = 'trial.json';
/** Copy buffer for the slot write; large enough that the syscall count does not matter. */
const CHUNK = 1 << 20;

interface AbSetup {
  env: BootEnvironment;
  names: TrialVariableNames;
  slots: Record<Slot, string>;
}

/** What the configuration lacks for avocado-ab, or null: the installer's `unavailable`. */
export function abSetupProblem(config: DaemonConfig): string | null {
  const boot = bootEnvironmentProblem(config);
  if (boot) return boot;
  if (!config.avocado_ab?.slots?.a || !config.avocado_ab.slots.b) return 'avocado-ab needs avocado_ab.slots.a and avocado_ab.slots.b in the configuration';
  return null;
}

/** The environment and slots from the configuration, or an error naming the missing key. */
export function abSetup(config: DaemonConfig): AbSetup {
  const problem = abSetupProblem(config);
  if (problem || !config.avocado_ab) throw new Error(problem ?? 'avocado-ab is not configured');
  const { env, names: configured } = openBootEnvironment(config);
  const names = { ...DEFAULT_VARIABLE_NAMES, ...configured };
  return { env, names, slots: { a: config.avocado_ab.slots.a, b: config.avocado_ab.slots.b } };
}

async function readTrial(stateDir: string): Promise<TrialRecord | null> {
  try {
    const record = JSON.parse(await fs.readFile(path.join(stateDir, TRIAL_FILE), 'utf8')) as TrialRecord;
    return (record.from === 'a' || record.from === 'b') && record.to === otherSlot(record.from) ? record : null;
  } catch {
    return null; // missing or torn: the environment alone then says what to do (avocado-ab-trial.ts)
  }
}


async function writeTrial(stateDir: string, record: TrialRecord): Promise<void> {
  await fs.mkdir(stateDir, { recursive: true });
  const target = path.join(stateDir, TRIAL_FILE);
  const temp = `${target}.tmp`;
  const handle = await fs.open(temp, 'w', 0o600);
  try {
    await handle.writeFile(JSON.stringify(record));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temp, target);
  await syncDirectory(stateDir);
}

async function clearTrial(stateDir: string): Promise<void> {
  await fs.rm(path.join(stateDir, TRIAL_FILE), { force: true });
  await syncDirectory(stateDir).catch(() => undefined);
}

/**
 * Copies `file` over the start of `device` (a block device, or a file it then truncates to the
 * image), fsyncs, and reads the written bytes back against `hash`.
 */
async function writeSlot(file: string, device: string, size: number, hash: string, signal: AbortSignal): Promise<void> {
  const source = await fs.open(file, 'r');
  const target = await fs.open(device, 'r+').catch(async (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return fs.open(device, 'w');
    throw error;
  });
  try {
    const buffer = Buffer.alloc(CHUNK);
    let position = 0;
    for (;;) {
      signal.throwIfAborted();
      const { bytesRead } = await source.read(buffer, 0, CHUNK, position);
      if (bytesRead === 0) break;
      let written = 0;
      while (written < bytesRead) written += (await target.write(buffer, written, bytesRead - written, position + written)).bytesWritten;
      position += bytesRead;
    }
    if (position !== size) throw new Error(`image is ${position} bytes, the manifest says ${size}`);
    if ((await target.stat()).isFile()) await target.truncate(size);
    await target.sync();
    const digest = createHash('sha256');
    for (let at = 0; at < size; ) {
      signal.throwIfAborted();
      const { bytesRead } = await target.read(buffer, 0, Math.min(CHUNK, size - at), at);
      if (bytesRead === 0) break;
      digest.update(buffer.subarray(0, bytesRead));
      at += bytesRead;
    }
    if (digest.digest('hex') !== hash) throw new Error(`slot ${device} does not read back the image written (SHA-256 mismatch)`);
  } finally {
    await source.close();
    await target.close();
  }
}

/** Resolves symlinks (/dev/disk/by-partlabel/...) so two names of one device compare equal. */
const realPath = (file: string) => fs.realpath(file).catch(() => file);

/**
 * Whether `device` is mounted (per /proc/self/mounts): a second guard, beside the environment,
 * against writing the slot the system runs from. (A root mounted as /dev/root is not caught here.)
 */
export async function isMounted(device: string, mountsFile = '/proc/self/mounts'): Promise<boolean> {
  let mounts: string;
  try {
    mounts = await fs.readFile(mountsFile, 'utf8');
  } catch {
    return false; // not Linux, or no /proc: the environment is the only guard
  }
  const target = await realPath(device);
  for (const line of mounts.split('\n')) {
    const source = line.split(' ')[0];
    if (source?.startsWith('/') && (await realPath(source.replace(/\\040/g, ' '))) === target) return true;
  }
  return false;
}

async function install(context: InstallContext): Promise<InstallOutcome> {
  const { file, entry, config, log, signal, stateDir, bootId } = context;
  const { env, names, slots } = abSetup(config);
  const vars = (await env.read()).variables;
  const active = activeSlot(vars, names);
  if (active === null) throw new Error(`${names.active_slot} is ${JSON.stringify(vars.get(names.active_slot))}, not a or b`);

  if (onTrial(vars, names)) {
    const record = await readTrial(stateDir);
    if (record && record.hash === entry.hash && record.to === active) {
      // This install already switched slots (the loop lost track before the reboot): same answer.
      log.info('avocado-ab trial already started for this image', { slot: active, binary_prn: entry.binary_prn });
      return { rebootRequired: true, slot: active };
    }
    throw new Error(`a trial boot of slot ${active} is pending; it must be confirmed or rolled back first`);
  }

  const target = otherSlot(active);
  if (await isMounted(slots[target])) throw new Error(`slot ${target} (${slots[target]}) is mounted: it may be the running system; refusing to write it`);
  log.info('avocado-ab writing image to inactive slot', { slot: target, device: slots[target], size: entry.size, binary_prn: entry.binary_prn });
  await writeSlot(file, slots[target], entry.size, entry.hash, signal);
  await writeTrial(stateDir, { from: active, to: target, hash: entry.hash, binary_prn: entry.binary_prn, ...(bootId ? { boot_id: bootId } : {}) });
  signal.throwIfAborted();
  await env.update(startTrialChanges(target, names));
  log.info('avocado-ab switched to trial slot', { from: active, to: target });
  return { rebootRequired: true, slot: target };
}

export type HealthCheckResult = { ok: true } | { ok: false; reason: string };

/**
 * Runs `program` with no arguments and CANOPY_SLOT set to the slot under trial. Exit 0 passes;
 * anything else, a failure to start, or running past `timeoutSeconds` (SIGKILL) fails.
 */
export function runHealthCheck(program: string, slot: string, timeoutSeconds: number, signal: AbortSignal): Promise<HealthCheckResult> {
  return new Promise((resolve) => {
    const child = spawn(program, [], { stdio: 'ignore', env: { ...process.env, CANOPY_SLOT: slot } });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutSeconds * 1000);
    const onAbort = () => child.kill('SIGKILL');
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (result: HealthCheckResult) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    child.on('error', (error) => done({ ok: false, reason: `health_check could not start: ${error.message}` }));
    child.on('close', (code, killedBy) => {
      if (timedOut) return done({ ok: false, reason: `health_check ran longer than ${timeoutSeconds} s` });
      if (signal.aborted) return done({ ok: false, reason: 'health_check interrupted' });
      if (code === 0) return done({ ok: true });
      done({ ok: false, reason: killedBy ? `health_check killed by ${killedBy}` : `health_check exited with ${code}` });
    });
  });
}

/**
 * What confirm answers: ConfirmOutcome plus whether the device must reboot now to run the slot
 * it reports (after a failed health check the old slot is chosen but the new one still runs).
 */
export type AbConfirmOutcome = ConfirmOutcome & { rebootRequired: boolean };

/**
 * The post-boot step, for the update loop's start-up (its `confirming` state): runs the health
 * check if a trial slot is running and makes it permanent or sends the device back; reports how
 * a trial ended when the boot script already fell back. Safe to call again after a power cut.
 * With no trial at all it answers confirmed on the running slot (nothing to do).
 */
export async function confirmAvocadoAbTrial(context: ConfirmContext): Promise<AbConfirmOutcome> {
  const { config, log, signal, stateDir } = context;
  const { env, names } = abSetup(config);
  const record = await readTrial(stateDir);
  const state = trialState((await env.read()).variables, names, record);
  switch (state.kind) {
    case 'none': {
      await clearTrial(stateDir);
      return { result: 'confirmed', slot: activeSlot((await env.read()).variables, names) ?? undefined, rebootRequired: false };
    }
    case 'confirmed':
      await clearTrial(stateDir);
      log.info('avocado-ab slot already permanent', { slot: state.slot });
      return { result: 'confirmed', slot: state.slot, rebootRequired: false };
    case 'fell_back':
      await clearTrial(stateDir);
      log.warn('avocado-ab rolled back by the boot loader', { slot: state.slot, reason: state.reason });
      return { result: 'rolled_back', reason: state.reason, slot: state.slot, rebootRequired: false };
    case 'inconsistent':
      await env.update(fallBackChanges(state.from, names));
      await clearTrial(stateDir);
      log.warn('avocado-ab boot environment inconsistent: falling back', { slot: state.from });
      return { result: 'rolled_back', reason: 'inconsistent_boot_environment', slot: state.from, rebootRequired: true };
    case 'on_trial': {
      const health: HealthCheckResult = config.health_check
        ? await runHealthCheck(config.health_check, state.to, config.install_timeout, signal)
        : { ok: true };
      if (health.ok) {
        await env.update(makePermanentChanges(names));
        await clearTrial(stateDir);
        log.info('avocado-ab health check passed: slot is permanent', { slot: state.to, health_check: config.health_check ?? null });
        return { result: 'confirmed', slot: state.to, rebootRequired: false };
      }
      await env.update(fallBackChanges(state.from, names));
      await clearTrial(stateDir);
      log.warn('avocado-ab health check failed: falling back', { from: state.to, to: state.from, reason: health.reason });
      return { result: 'rolled_back', reason: `health_check_failed: ${health.reason}`, slot: state.from, rebootRequired: true };
    }
  }
}

/**
 * Whether a trial waits for confirmation: the loop calls this at start-up in case its own state
 * was lost. With `bootId`, a trial record made in this same boot is not pending yet: the device
 * has not rebooted into the trial slot (the daemon was only restarted), and a health check now
 * would judge the old software.
 */
export async function avocadoAbTrialPending(config: DaemonConfig, stateDir: string, bootId?: string): Promise<boolean> {
  if (abSetupProblem(config)) return false;
  const { env, names } = abSetup(config);
  const record = await readTrial(stateDir);
  if (bootId !== undefined && record?.boot_id === bootId) return false;
  const state = trialState((await env.read()).variables, names, record);
  return state.kind !== 'none';
}

export const avocadoAbInstaller: Installer = {
  name: 'avocado-ab',
  // The running slot holds the release the device runs; the other one the release before.
  deltaBases: (_metadata, config) => (config.avocado_ab ? [config.avocado_ab.slots.a, config.avocado_ab.slots.b] : []),
  unavailable: abSetupProblem,
  install,
  confirm: confirmAvocadoAbTrial,
  trialPending: avocadoAbTrialPending,
  async currentSlot(config: DaemonConfig) {
    if (abSetupProblem(config)) return undefined;
    const { env, names } = abSetup(config);
    return activeSlot((await env.read()).variables, names) ?? undefined;
  },
};
