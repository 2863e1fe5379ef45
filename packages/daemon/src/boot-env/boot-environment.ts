/**
 * The boot loader's variables as the A/B installer needs them, whichever boot loader keeps them:
 * the U-Boot environment (uboot-env/, written by the daemon itself) or GRUB's grubenv (grub-env/,
 * written with grub-editenv). The configuration names exactly one of `uboot_environment` and
 * `grub_environment`; see docs/decisions/010-grub-boot-environment.md.
 */
import type { DaemonConfig } from '../config/types.ts';
import { openGrubEnvironment } from '../grub-env/grub-env.ts';
import { locationsFromConfig, openEnvironment } from '../uboot-env/index.ts';

export interface BootEnvironment {
  read(): Promise<{ variables: Map<string, string> }>;
  /** Applies `changes` (null deletes a variable) and answers the variables now stored. */
  update(changes: Record<string, string | null>): Promise<Map<string, string>>;
}

export interface BootVariableNames {
  active_slot: string;
  upgrade_available: string;
  boot_count: string;
  boot_limit: string;
}

/** What the configuration lacks (or has twice) for a boot environment, or null. */
export function bootEnvironmentProblem(config: DaemonConfig): string | null {
  if (config.uboot_environment && config.grub_environment) return 'uboot_environment and grub_environment are both configured; the device boots with one boot loader';
  if (!config.uboot_environment && !config.grub_environment) return 'avocado-ab needs uboot_environment or grub_environment in the configuration';
  return null;
}

/** The configured boot environment and its variable names (call bootEnvironmentProblem first). */
export function openBootEnvironment(config: DaemonConfig): { env: BootEnvironment; names: Partial<BootVariableNames> } {
  if (config.grub_environment) {
    const grub = config.grub_environment;
    return { env: openGrubEnvironment(grub.file, grub.editenv), names: grub.variables };
  }
  if (!config.uboot_environment) throw new Error(bootEnvironmentProblem(config) ?? 'no boot environment configured');
  return { env: openEnvironment(locationsFromConfig(config.uboot_environment.copies)), names: config.uboot_environment.variables };
}
