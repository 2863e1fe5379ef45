import { describe, expect, it } from 'vitest';
import { formatFwEnvConfig, locationsFromConfig, LocationError, parseFwEnvConfig } from './locations.ts';

describe('parseFwEnvConfig', () => {
  it('reads one or two copies, hex or decimal, with comments and blank lines', () => {
    const single = parseFwEnvConfig('# device offset size\n/boot/uboot.env 0x0 0x4000\n');
    expect(single).toEqual({ layout: 'single', size: 0x4000, copies: [{ device: '/boot/uboot.env', offset: 0, size: 0x4000, sectorSize: null }] });
    const redundant = parseFwEnvConfig('\n/dev/mmcblk0boot0 0x3f8000 0x4000 0x200  # first\n\t/dev/mmcblk0boot0\t4177920\t16384\n');
    expect(redundant.layout).toBe('redundant');
    expect(redundant.copies.map((c) => [c.offset, c.size, c.sectorSize])).toEqual([
      [0x3f8000, 0x4000, 0x200],
      [0x3fc000, 0x4000, null],
    ]);
  });

  it('refuses bad lines, naming the line', () => {
    const message = (text: string) => {
      try {
        parseFwEnvConfig(text);
      } catch (error) {
        expect(error).toBeInstanceOf(LocationError);
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(message('/a 0x0\n')).toMatch(/^fw_env.config:1: expected/);
    expect(message('\n/a 0xZZ 0x4000\n')).toMatch(/^fw_env.config:2: invalid offset/);
    expect(message('/a 0 -5\n')).toMatch(/invalid size/);
    expect(message('')).toMatch(/one or two copies, got 0/);
    expect(message('/a 0 0x100\n/a 0x100 0x100\n/a 0x200 0x100\n')).toMatch(/got 3/);
    expect(message('/a 0 0x100\n/a 0x100 0x200\n')).toMatch(/^fw_env.config:2: both copies must have the same size/);
    expect(message('/a 0 0x100\n/a 0x80 0x100\n')).toMatch(/overlap/);
    expect(message('/a 0 8\n')).toMatch(/too small/);
  });
});

describe('locationsFromConfig', () => {
  it('reads the run-time configuration form and names the key path of a bad value', () => {
    const locations = locationsFromConfig([
      { device: '/dev/mmcblk0boot0', offset: '0x3f8000', size: '0x4000' },
      { device: '/dev/mmcblk0boot0', offset: '0x3fc000', size: '0x4000', sector_size: '0x1000' },
    ]);
    expect(locations.layout).toBe('redundant');
    expect(locations.copies[1].sectorSize).toBe(0x1000);
    expect(() => locationsFromConfig([{ device: 'relative', offset: '0', size: '0x4000' }])).toThrow('uboot_environment.copies[0].device');
    expect(() => locationsFromConfig([{ device: '/a', offset: '0', size: '0x4000' }, { device: '/a', offset: 'x', size: '0x4000' }])).toThrow('uboot_environment.copies[1].offset');
    expect(() => locationsFromConfig([])).toThrow('uboot_environment.copies: one or two copies');
  });

  it('also takes numbers, as config/ hands them over once parsed', () => {
    expect(locationsFromConfig([{ device: '/boot/env', offset: 0, size: 0x4000, sector_size: 0x1000 }]).copies[0]).toEqual({ device: '/boot/env', offset: 0, size: 0x4000, sectorSize: 0x1000 });
    expect(() => locationsFromConfig([{ device: '/boot/env', offset: -1, size: 0x4000 }])).toThrow('uboot_environment.copies[0].offset');
  });

  it('formats fw_env.config text that parses back to the same locations', () => {
    const locations = locationsFromConfig([{ device: '/boot/env', offset: '0x0', size: '0x2000', sector_size: '0x1000' }, { device: '/boot/env', offset: '0x2000', size: '0x2000' }]);
    expect(parseFwEnvConfig(formatFwEnvConfig(locations))).toEqual(locations);
  });
});
