/**
 * The one interface every installer implements, and the registry that picks one by the binary's
 * `custom_metadata.canopy.installer` (site/docs/canopy-core/tools/canopy-daemon/custom-metadata/).
 *
 * The update loop (update/) owns everything around an install: it downloads and verifies the
 * binary first (an installer only ever sees a file whose size, SHA-256 and signatures matched),
 * persists its state before and after each call, reports to the server, and reboots when an
 * installer asks for it. An installer owns only the write to the device, so it must be safe to
 * call again after a power cut mid-install: the loop re-runs `install` from the start for a binary
 * whose install was interrupted (the `file` installer writes a temp file then renames; `avocado-ab`
 * rewrites the whole inactive slot).
 *
 * Installers with a trial boot (avocado-ab) also implement `confirm`: after the reboot the loop, in
 * its `confirming` state, calls it once; it runs the health check and either makes the new slot
 * permanent or falls back, and the loop reports `installed` or `rolled_back` accordingly.
 */
import type { DaemonConfig } from '../config/types.ts';
import type { Logger } from '../log.ts';
import type { ManifestEntry } from '@canopy/sdk/device';
import type { CanopyMetadata, InstallerName } from './metadata.ts';

export interface InstallContext {
  /** The downloaded, verified binary. Read it; do not move or delete it (the loop cleans up). */
  file: string;
  /** The manifest entry the file came from, with its `custom_metadata`. */
  entry: ManifestEntry;
  /** `entry.custom_metadata.canopy`, already validated against the schema, defaults applied. */
  metadata: CanopyMetadata;
  config: DaemonConfig;
  log: Logger;
  /** Aborted on shutdown or when `install_timeout` passes: stop, clean up, reject. */
  signal: AbortSignal;
  /**
   * A directory this installer may keep its own files in across restarts (it survives reboots);
   * under the daemon's state dir, one per installer name.
   */
  stateDir: string;
  /** This boot's id (update/agent.ts `bootId`), when known: a trial records it to tell a reboot from a restart. */
  bootId?: string;
  /** How far the install is, 0 to 1, from tools that say (rauc, swupdate); the loop logs it. */
  progress?: (fraction: number, step: string) => void;
}

export interface InstallOutcome {
  /** True when the new software runs only after a reboot (the bundle's reboot_required also counts). */
  rebootRequired: boolean;
  /** For slot-based installers: the slot written, which the device boots into next ('a' or 'b'). */
  slot?: string;
}

export interface ConfirmContext {
  config: DaemonConfig;
  log: Logger;
  signal: AbortSignal;
  stateDir: string;
  /** The slot `install` returned, if any. */
  slot?: string;
}

export type ConfirmOutcome =
  /** The new software runs and passed its health check; it is now permanent. */
  | { result: 'confirmed'; slot?: string }
  /**
   * The previous software is chosen again (boot limit reached or health check failed).
   * `rebootRequired`: the previous software runs only after a reboot (a failed health check: the
   * new slot still runs); the loop reports `rolled_back` first, then reboots.
   */
  | { result: 'rolled_back'; reason: string; slot?: string; rebootRequired?: boolean };

export interface Installer {
  readonly name: InstallerName;
  /**
   * Why this device cannot use the installer (its configuration lacks what it writes to), or
   * null. Asked before anything is downloaded, so a release the device cannot install fails at
   * once instead of after the transfer.
   */
  unavailable?(config: DaemonConfig): string | null;
  install(context: InstallContext): Promise<InstallOutcome>;
  /** Only installers with a trial boot; absent means "installed" as soon as `install` resolves. */
  confirm?(context: ConfirmContext): Promise<ConfirmOutcome>;
  /**
   * Whether a trial waits for `confirm` although the loop has no job for it (its state was lost);
   * the loop then confirms it at start-up without reports (it does not know the bundle).
   */
  trialPending?(config: DaemonConfig, stateDir: string, bootId?: string): Promise<boolean>;
  /** The slot the device runs now, for `canopy-daemon status`; absent when slots do not apply. */
  currentSlot?(config: DaemonConfig): Promise<string | undefined>;
  /**
   * Where this installer's earlier installs can be read back byte for byte, as a delta's base
   * (deltas/base-source.ts): the installed file, the slots. Absent: only a kept copy serves.
   */
  deltaBases?(metadata: CanopyMetadata, config: DaemonConfig): string[];
}

/** The installers one daemon (or one simulated device) can use, keyed by their metadata name. */
export type InstallerRegistry = ReadonlyMap<InstallerName, Installer>;

export function createInstallerRegistry(installers: readonly Installer[]): InstallerRegistry {
  const registry = new Map<InstallerName, Installer>();
  for (const installer of installers) {
    if (registry.has(installer.name)) throw new Error(`two installers named ${installer.name}`);
    registry.set(installer.name, installer);
  }
  return registry;
}

/**
 * The installer for a validated metadata object, or an error reason the loop reports as `failed`:
 * none registered by that name, or one this device's configuration cannot serve.
 */
export function pickInstaller(
  registry: InstallerRegistry,
  metadata: CanopyMetadata,
  config: DaemonConfig,
): { installer: Installer } | { reason: string } {
  const installer = registry.get(metadata.installer);
  if (!installer) return { reason: `installer ${metadata.installer} is not available on this device` };
  const problem = installer.unavailable?.(config);
  return problem ? { reason: `installer ${metadata.installer} is not available on this device: ${problem}` } : { installer };
}
