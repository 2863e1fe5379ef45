import { describe, expect, it } from 'vitest';
import type { DaemonConfig } from '../config/types.ts';
import { abSetupProblem } from '../installers/avocado-ab.ts';

const names = { active_slot: 'canopy_active_slot', upgrade_available: 'canopy_upgrade_available', boot_count: 'canopy_boot_count', boot_limit: 'canopy_boot_limit' };
const slots = { avocado_ab: { slots: { a: '/dev/vda2', b: '/dev/vda3' } } };
const grub = { grub_environment: { file: '/boot/grub/grubenv', variables: names } };
const uboot = { uboot_environment: { copies: [{ device: '/boot/uboot.env', offset: 0, size: 0x4000 }], variables: names } };

describe('avocado-ab boot environment choice', () => {
  it('takes GRUB or U-Boot, refuses both or neither', () => {
    const config = (extra: object) => ({ ...slots, ...extra }) as unknown as DaemonConfig;
    expect(abSetupProblem(config(grub))).toBeNull();
    expect(abSetupProblem(config(uboot))).toBeNull();
    expect(abSetupProblem(config({ ...grub, ...uboot }))).toMatch(/both configured/);
    expect(abSetupProblem(config({}))).toMatch(/uboot_environment or grub_environment/);
  });
});
