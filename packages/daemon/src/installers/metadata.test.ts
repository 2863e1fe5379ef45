import { describe, expect, it } from 'vitest';
import { parseCanopyMetadata } from './metadata.ts';

describe('parseCanopyMetadata', () => {
  it('applies the schema defaults', () => {
    expect(parseCanopyMetadata(null)).toEqual({ ok: true, metadata: { installer: 'avocado-ab', reboot_required: true } });
    expect(parseCanopyMetadata({ build: { commit: 'a1b2' } })).toEqual({ ok: true, metadata: { installer: 'avocado-ab', reboot_required: true } });
    expect(parseCanopyMetadata({ canopy: { installer: 'file', file: { path: '/data/m.onnx' } } })).toEqual({
      ok: true,
      metadata: { installer: 'file', reboot_required: true, file: { path: '/data/m.onnx', mode: 0o644 } },
    });
    expect(parseCanopyMetadata({ canopy: { installer: 'script', script: { path: '/usr/bin/x' }, reboot_required: false, min_free_bytes: 10 } })).toEqual({
      ok: true,
      metadata: { installer: 'script', reboot_required: false, script: { path: '/usr/bin/x', timeout_seconds: 600 }, min_free_bytes: 10 },
    });
  });

  it('gives tar its defaults and deb and rpm their downgrade guard', () => {
    expect(parseCanopyMetadata({ canopy: { installer: 'tar', tar: { path: '/opt/app/' } } })).toEqual({
      ok: true,
      metadata: { installer: 'tar', reboot_required: true, tar: { path: '/opt/app', umask: 0o022 } },
    });
    expect(parseCanopyMetadata({ canopy: { installer: 'deb', reboot_required: false } })).toEqual({
      ok: true,
      metadata: { installer: 'deb', reboot_required: false, deb: { allow_downgrade: false } },
    });
    expect(parseCanopyMetadata({ canopy: { installer: 'rpm', rpm: { allow_downgrade: true } } })).toEqual({
      ok: true,
      metadata: { installer: 'rpm', reboot_required: true, rpm: { allow_downgrade: true } },
    });
  });

  it('refuses an invalid object with a reason naming the key', () => {
    const reason = (canopy: unknown) => {
      const result = parseCanopyMetadata({ canopy });
      return result.ok ? 'valid' : result.reason;
    };
    expect(reason('file')).toBe('custom_metadata.canopy: must be an object');
    expect(reason({ installer: 'opkg' })).toBe('custom_metadata.canopy.installer: must be one of avocado-ab, deb, file, rauc, rpm, script, swupdate, tar');
    expect(reason({ installer: 'tar' })).toBe('custom_metadata.canopy.tar: required by the tar installer');
    expect(reason({ installer: 'tar', tar: { path: '/opt/../etc' } })).toMatch(/^custom_metadata.canopy.tar.path: must match /);
    expect(reason({ installer: 'tar', tar: { path: '/' } })).toMatch(/^custom_metadata.canopy.tar.path: must match /);
    expect(reason({ installer: 'tar', tar: { path: '/opt/app', uid: -1 } })).toBe('custom_metadata.canopy.tar.uid: must be an integer from 0 to 4294967294');
    expect(reason({ installer: 'tar', tar: { path: '/opt/app', umask: '22' } })).toBe('custom_metadata.canopy.tar.umask: must match ^0[0-7]{3}$');
    expect(reason({ installer: 'deb', deb: { allow_downgrade: 'yes' } })).toBe('custom_metadata.canopy.deb.allow_downgrade: must be a boolean');
    expect(reason({ installer: 'rpm', rpm: { allow_downgrade: 1 } })).toBe('custom_metadata.canopy.rpm.allow_downgrade: must be a boolean');
    expect(reason({ installer: 'rpm', rpm: { force: true } })).toBe('custom_metadata.canopy.rpm.force: unknown key');
    expect(reason({ installer: 'file' })).toBe('custom_metadata.canopy.file: required by the file installer');
    expect(reason({ installer: 'file', file: { path: 'relative' } })).toBe('custom_metadata.canopy.file.path: must be an absolute path');
    expect(reason({ installer: 'file', file: { path: '/x', mode: '644' } })).toBe('custom_metadata.canopy.file.mode: must match ^0[0-7]{3}$');
    expect(reason({ installer: 'file', file: { path: '/x', owner: 'root' } })).toBe('custom_metadata.canopy.file.owner: unknown key');
    expect(reason({ installer: 'script', script: { path: '/x', timeout_seconds: 3601 } })).toBe('custom_metadata.canopy.script.timeout_seconds: must be an integer from 1 to 3600');
    expect(reason({ reboot_required: 'yes' })).toBe('custom_metadata.canopy.reboot_required: must be a boolean');
    expect(reason({ min_free_bytes: -1 })).toBe('custom_metadata.canopy.min_free_bytes: must be a non-negative integer');
    expect(reason({ installer: 'file', file: { path: '/x' }, extra: 1 })).toBe('custom_metadata.canopy.extra: unknown key');
  });
});
