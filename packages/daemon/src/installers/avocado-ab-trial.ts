/**
 * The A/B trial boot as the daemon sees it, as pure functions of the U-Boot variables and the
 * trial record the installer keeps (see avocado-ab.ts). The protocol, shared with the boot
 * script (site/docs/canopy-core/tools/canopy-daemon/uboot-environment/overview.md):
 *
 *   install:   image -> inactive slot; then active_slot = that slot, upgrade_available = 1,
 *              boot_count = 0; reboot.
 *   each boot: while upgrade_available = 1 the boot script adds 1 to boot_count; when the count
 *              exceeds boot_limit (default 3) it sets active_slot back to the other slot, deletes
 *              upgrade_available and sets boot_count = 0. It boots active_slot.
 *   confirm:   after the reboot the daemon runs health_check; exit 0 deletes upgrade_available
 *              and boot_count (the slot is permanent); anything else sets active_slot back,
 *              deletes upgrade_available, sets boot_count = 0, and the device reboots.
 *
 * Decisions the docs left open:
 * - The slot that runs is the one `active_slot` names (the boot script boots it); the daemon does
 *   not parse the kernel command line, so the same code runs on file-backed test slots.
 * - An unset `active_slot` means `a` (a freshly flashed device boots slot a).
 * - "Permanent" deletes the trial variables rather than writing 0, as fw_setenv would.
 */
export type Slot = 'a' | 'b';

export const otherSlot = (slot: Slot): Slot => (slot === 'a' ? 'b' : 'a');

/** The names of the variables, from `uboot_environment.variables` (defaults canopy_*). */
export interface TrialVariableNames {
  active_slot: string;
  upgrade_available: string;
  boot_count: string;
  boot_limit: string;
}

export const DEFAULT_VARIABLE_NAMES: TrialVariableNames = {
  active_slot: 'canopy_active_slot',
  upgrade_available: 'canopy_upgrade_available',
  boot_count: 'canopy_boot_count',
  boot_limit: 'canopy_boot_limit',
};

export const DEFAULT_BOOT_LIMIT = 3;

/** What the installer wrote before switching slots; kept in its state dir until the trial ends. */
export interface TrialRecord {
  from: Slot;
  to: Slot;
  /** SHA-256 of the image written, to recognise a re-run of the same install. */
  hash: string;
  binary_prn: string;
  /** The boot the install ran in (kernel boot id), when known: the same id later means no reboot yet. */
  boot_id?: string;
}

type Variables = ReadonlyMap<string, string>;

export function activeSlot(vars: Variables, names: TrialVariableNames): Slot | null {
  const value = vars.get(names.active_slot);
  if (value === undefined) return 'a';
  return value === 'a' || value === 'b' ? value : null;
}

export const onTrial = (vars: Variables, names: TrialVariableNames) => vars.get(names.upgrade_available) === '1';

/** The variables that start a trial of `to`. */
export function startTrialChanges(to: Slot, names: TrialVariableNames): Record<string, string> {
  return { [names.active_slot]: to, [names.upgrade_available]: '1', [names.boot_count]: '0' };
}

/** The variables that make the running trial slot permanent. */
export function makePermanentChanges(names: TrialVariableNames): Record<string, null> {
  return { [names.upgrade_available]: null, [names.boot_count]: null };
}

/** The variables that send the device back to `from` (health check failed). */
export function fallBackChanges(from: Slot, names: TrialVariableNames): Record<string, string | null> {
  return { [names.active_slot]: from, [names.upgrade_available]: null, [names.boot_count]: '0' };
}

export type TrialState =
  /** No trial recorded and none in the environment: nothing to confirm. */
  | { kind: 'none' }
  /** The trial slot runs and is still on trial: run the health check. */
  | { kind: 'on_trial'; from: Slot; to: Slot }
  /** The trial slot is already permanent (a confirm interrupted after its write). */
  | { kind: 'confirmed'; slot: Slot }
  /** The boot script gave up on the trial slot and booted the old one. */
  | { kind: 'fell_back'; slot: Slot; reason: 'boot_limit_reached' }
  /** The environment does not match any step of the protocol: send the device back to `from`. */
  | { kind: 'inconsistent'; from: Slot };

/** Where a trial stands after a boot, from the environment and the installer's record. */
export function trialState(vars: Variables, names: TrialVariableNames, record: TrialRecord | null): TrialState {
  const active = activeSlot(vars, names);
  const trial = onTrial(vars, names);
  if (record === null) {
    // A trial someone else started (or whose record was lost): the slot on trial is the active one.
    if (!trial) return { kind: 'none' };
    if (active === null) return { kind: 'inconsistent', from: 'a' };
    return { kind: 'on_trial', from: otherSlot(active), to: active };
  }
  if (trial && active === record.to) return { kind: 'on_trial', from: record.from, to: record.to };
  if (!trial && active === record.to) return { kind: 'confirmed', slot: record.to };
  if (!trial && active === record.from) return { kind: 'fell_back', slot: record.from, reason: 'boot_limit_reached' };
  // On trial, but not of the slot the record names, or an unreadable active_slot: go back.
  return { kind: 'inconsistent', from: record.from };
}
