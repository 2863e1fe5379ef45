import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openGrubEnvironment, parseEditenvList } from './grub-env.ts';

const HAS_EDITENV = spawnSync('grub-editenv', ['--version']).error === undefined;

describe('parseEditenvList', () => {
  it('reads name=value lines, values keeping their own =', () => {
    expect(parseEditenvList('a=1\nb=x=y\n\n')).toEqual(new Map([['a', '1'], ['b', 'x=y']]));
  });
});

describe.skipIf(!HAS_EDITENV)('openGrubEnvironment with grub-editenv (grub-common)', () => {
  it('sets and unsets variables in a grubenv block GRUB can read, in place', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-grubenv-'));
    const file = path.join(dir, 'grubenv');
    spawnSync('grub-editenv', [file, 'create']);
    const env = openGrubEnvironment(file);
    expect((await env.read()).variables.size).toBe(0);
    expect(await env.update({ canopy_active_slot: 'b', canopy_upgrade_available: '1', canopy_boot_count: '0' })).toEqual(
      new Map([['canopy_active_slot', 'b'], ['canopy_upgrade_available', '1'], ['canopy_boot_count', '0']]),
    );
    expect(await env.update({ canopy_upgrade_available: null, canopy_boot_count: null })).toEqual(new Map([['canopy_active_slot', 'b']]));
    expect(fs.statSync(file).size).toBe(1024);
    expect(spawnSync('grub-editenv', [file, 'list'], { encoding: 'utf8' }).stdout).toBe('canopy_active_slot=b\n');
    await expect(env.update({ 'bad-name': '1' })).rejects.toThrow(/letters, digits and _/);
    fs.rmSync(dir, { recursive: true });
  });
});
