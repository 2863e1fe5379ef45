/**
 * The daemon's U-Boot environment against Debian's libubootenv (fw_printenv / fw_setenv) on a
 * file-backed environment, both ways, in the single and the redundant layout.
 */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeCopy, encodeCopy, openEnvironment } from '../../src/uboot-env/index.ts';
import { fileEnvironment, HAS_FW_TOOLS, NO_FW_TOOLS_REASON, type FileEnvironment } from '../support/libubootenv.ts';

const made: FileEnvironment[] = [];
const environment = (layout: 'single' | 'redundant') => {
  const env = fileEnvironment(layout);
  made.push(env);
  return env;
};
afterEach(() => {
  for (const env of made.splice(0)) env.remove();
});

const copyBytes = (env: FileEnvironment, index: number) => {
  const { offset, size } = env.locations.copies[index];
  return fs.readFileSync(env.file).subarray(offset, offset + size);
};

describe.skipIf(!HAS_FW_TOOLS)('U-Boot environment interoperates with libubootenv', () => {
  if (!HAS_FW_TOOLS) console.warn(NO_FW_TOOLS_REASON);

  for (const layout of ['single', 'redundant'] as const) {
    describe(`${layout} layout`, () => {
      it('what the daemon writes, fw_printenv reads', async () => {
        const env = environment(layout);
        const daemon = openEnvironment(env.locations);
        await daemon.update({ canopy_active_slot: 'b', canopy_upgrade_available: '1', bootargs: 'console=ttyS0,115200 root=/dev/mmcblk0p2 rw' });
        expect(env.printenv()).toEqual(new Map([
          ['bootargs', 'console=ttyS0,115200 root=/dev/mmcblk0p2 rw'],
          ['canopy_active_slot', 'b'],
          ['canopy_upgrade_available', '1'],
        ]));
        await daemon.update({ canopy_upgrade_available: null, canopy_boot_count: '0' });
        await daemon.update({ canopy_boot_count: '1' });
        expect(env.printenv()).toEqual(new Map([
          ['bootargs', 'console=ttyS0,115200 root=/dev/mmcblk0p2 rw'],
          ['canopy_active_slot', 'b'],
          ['canopy_boot_count', '1'],
        ]));
      });

      it('what fw_setenv writes, the daemon reads, and the two can take turns', async () => {
        const env = environment(layout);
        const daemon = openEnvironment(env.locations);
        env.setenv('canopy_active_slot', 'a');
        env.setenv('bootcmd', 'run distro_bootcmd; echo a=b');
        expect((await daemon.read()).variables).toEqual(new Map([
          ['bootcmd', 'run distro_bootcmd; echo a=b'],
          ['canopy_active_slot', 'a'],
        ]));
        await daemon.update({ canopy_active_slot: 'b' });
        env.setenv('bootcmd'); // removes it
        await daemon.update({ canopy_boot_count: '2' });
        env.setenv('canopy_boot_count', '3');
        expect((await daemon.read()).variables).toEqual(new Map([['canopy_active_slot', 'b'], ['canopy_boot_count', '3']]));
        expect(env.printenv()).toEqual((await daemon.read()).variables);
      });
    });
  }

  it('single layout: the daemon lays out the entries byte for byte as fw_setenv does', async () => {
    const ours = environment('single');
    const theirs = environment('single');
    await openEnvironment(ours.locations).update({ zeta: '1', alpha: 'x y', canopy_active_slot: 'a' });
    for (const [name, value] of [['canopy_active_slot', 'a'], ['zeta', '1'], ['alpha', 'x y']]) theirs.setenv(name, value);
    // Up to the NUL that ends the list. (libubootenv 0.3.2 leaves a few bytes of the padding
    // uninitialised, so the padding and the CRC over it can differ; the daemon pads with NUL.)
    const entries = (bytes: Buffer) => bytes.subarray(4, bytes.indexOf(Buffer.from([0, 0]), 4) + 2);
    expect(entries(copyBytes(ours, 0)).toString('latin1')).toBe('alpha=x y\0canopy_active_slot=a\0zeta=1\0\0');
    expect(entries(copyBytes(ours, 0)).equals(entries(copyBytes(theirs, 0)))).toBe(true);
  });

  it('redundant layout: each write goes to the other copy with the next flag, as fw_setenv does', async () => {
    const env = environment('redundant');
    const daemon = openEnvironment(env.locations);
    env.setenv('n', '1'); // blank area: libubootenv writes copy 1, flag 1
    const flags = () => [copyBytes(env, 0)[4], copyBytes(env, 1)[4]];
    expect(flags()).toEqual([0, 1]);
    await daemon.update({ n: '2' });
    expect(flags()).toEqual([2, 1]);
    expect((await daemon.read()).current).toBe(0);
    env.setenv('n', '3');
    expect(flags()).toEqual([2, 3]);
    await daemon.update({ n: '4' });
    expect(flags()).toEqual([4, 3]);
    expect(env.printenv().get('n')).toBe('4');
    // The older copy still holds the previous environment.
    expect(decodeCopy(copyBytes(env, 1), 'redundant').variables.get('n')).toBe('3');
  });

  it('redundant layout: the flag wraps from 255 to 0 and both sides agree 0 is newer', async () => {
    const env = environment('redundant');
    const fd = fs.openSync(env.file, 'r+');
    fs.writeSync(fd, encodeCopy(new Map([['n', 'old']]), env.locations.size, 'redundant', 254), 0, env.locations.size, env.locations.copies[0].offset);
    fs.writeSync(fd, encodeCopy(new Map([['n', 'newer']]), env.locations.size, 'redundant', 255), 0, env.locations.size, env.locations.copies[1].offset);
    fs.closeSync(fd);
    const daemon = openEnvironment(env.locations);
    expect(env.printenv().get('n')).toBe('newer');
    expect((await daemon.read()).variables.get('n')).toBe('newer');
    await daemon.update({ n: 'wrapped' });
    expect(copyBytes(env, 0)[4]).toBe(0);
    expect(env.printenv().get('n')).toBe('wrapped');
    env.setenv('n', 'theirs');
    expect(copyBytes(env, 1)[4]).toBe(1);
    expect((await daemon.read()).variables.get('n')).toBe('theirs');
  });

  it('redundant layout: two valid copies with equal flags: copy 0 is current for both', async () => {
    const env = environment('redundant');
    const fd = fs.openSync(env.file, 'r+');
    fs.writeSync(fd, encodeCopy(new Map([['n', 'zero']]), env.locations.size, 'redundant', 5), 0, env.locations.size, env.locations.copies[0].offset);
    fs.writeSync(fd, encodeCopy(new Map([['n', 'one']]), env.locations.size, 'redundant', 5), 0, env.locations.size, env.locations.copies[1].offset);
    fs.closeSync(fd);
    expect(env.printenv().get('n')).toBe('zero');
    expect((await openEnvironment(env.locations).read()).variables.get('n')).toBe('zero');
  });

  it('redundant layout: a power cut between the data and the flag leaves the old environment current for both', async () => {
    const env = environment('redundant');
    const daemon = openEnvironment(env.locations);
    await daemon.update({ canopy_active_slot: 'a' });
    const before = await daemon.read();
    // What env-file.ts writes in its first step, and nothing after: the new data under the losing flag.
    const target = env.locations.copies[before.current === 0 ? 1 : 0];
    const fd = fs.openSync(env.file, 'r+');
    fs.writeSync(fd, encodeCopy(new Map([['canopy_active_slot', 'b']]), env.locations.size, 'redundant', (before.flag! - 1) & 0xff), 0, env.locations.size, target.offset);
    fs.closeSync(fd);
    expect((await daemon.read()).variables.get('canopy_active_slot')).toBe('a');
    expect(env.printenv().get('canopy_active_slot')).toBe('a');
  });

  it('redundant layout: a corrupted current copy falls back to the other for both', async () => {
    const env = environment('redundant');
    const daemon = openEnvironment(env.locations);
    await daemon.update({ v: 'first' });
    await daemon.update({ v: 'second' });
    const current = (await daemon.read()).current;
    const fd = fs.openSync(env.file, 'r+');
    fs.writeSync(fd, Buffer.from('garbage'), 0, 7, env.locations.copies[current].offset + 8);
    fs.closeSync(fd);
    expect((await daemon.read()).variables.get('v')).toBe('first');
    expect(env.printenv().get('v')).toBe('first');
  });

  it('refuses a write that does not fit, leaving the environment as it was', async () => {
    const env = environment('redundant');
    const daemon = openEnvironment(env.locations);
    await daemon.update({ keep: 'me' });
    const before = fs.readFileSync(env.file);
    await expect(daemon.update({ big: 'x'.repeat(env.locations.size) })).rejects.toMatchObject({ code: 'too_large' });
    expect(fs.readFileSync(env.file).equals(before)).toBe(true);
    expect(env.printenv()).toEqual(new Map([['keep', 'me']]));
  });
});
