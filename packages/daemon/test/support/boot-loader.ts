/**
 * A stand-in for the boot loader's part of the A/B protocol (what the U-Boot boot script does on
 * a real board; uboot-environment/overview.md): on each "power on" it reads the environment, counts
 * a trial boot, falls back past the limit, saves, and answers the slot it boots. It reads and writes
 * the environment with Debian's fw_printenv/fw_setenv, not with the daemon's code, so the A/B tests
 * also check that the daemon's writes are what another implementation reads.
 */
import fs from 'node:fs';
import type { FileEnvironment } from './libubootenv.ts';

export interface BootResult {
  slot: 'a' | 'b';
  /** The first bytes of the slot booted: which image runs. */
  image: string;
  /** True when this boot gave up on the trial slot. */
  fellBack: boolean;
}

export function powerOn(env: FileEnvironment, slots: { a: string; b: string }): BootResult {
  const vars = env.printenv();
  let slot = (vars.get('canopy_active_slot') ?? 'a') as 'a' | 'b';
  let fellBack = false;
  if (vars.get('canopy_upgrade_available') === '1') {
    const count = Number(vars.get('canopy_boot_count') ?? '0') + 1;
    const limit = Number(vars.get('canopy_boot_limit') ?? '3');
    if (count > limit) {
      slot = slot === 'a' ? 'b' : 'a';
      fellBack = true;
      env.setenv('canopy_active_slot', slot);
      env.setenv('canopy_upgrade_available');
      env.setenv('canopy_boot_count', '0');
    } else {
      env.setenv('canopy_boot_count', String(count));
    }
  }
  const image = fs.readFileSync(slots[slot]).subarray(0, 64).toString('latin1');
  return { slot, image, fellBack };
}
