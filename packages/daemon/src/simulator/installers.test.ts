import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { InstallContext } from '../installers/installer.ts';
import type { ManifestEntry } from '@canopy/sdk/device';
import { failuresOfDevice, isFaulty, soakFailureOfDevice, virtualInstallers } from './installers.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

it('spreads the faulty share evenly: three devices of every ten for 0.3, none for 0, all for 1', () => {
  const faulty = (share: number, devices: number) => Array.from({ length: devices }, (_, i) => i).filter((i) => isFaulty(i, share));
  expect(faulty(0.3, 200)).toHaveLength(60);
  for (let start = 0; start < 190; start += 10) expect(faulty(0.3, 200).filter((i) => i >= start && i < start + 10)).toHaveLength(3);
  expect(faulty(0, 50)).toEqual([]);
  expect(faulty(1, 50)).toHaveLength(50);
});

it('fails the chosen versions on a faulty device, before writing anything, and installs the others', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-installers-'));
  dirs.push(dir);
  const source = path.join(dir, 'binary');
  fs.writeFileSync(source, 'new software');
  const entry = (version: string) => ({ artifact: { prn: 'a', name: 'app' }, artifact_version: { prn: 'v', version } }) as ManifestEntry;
  const context = (version: string) =>
    ({ file: source, entry: entry(version), metadata: { installer: 'file', file: { path: '/opt/app.bin', mode: 0o644 }, reboot_required: false }, signal: new AbortController().signal }) as unknown as InstallContext;
  const faultyIndex = [...Array(10).keys()].find((i) => isFaulty(i, 0.3))!;
  const soundIndex = [...Array(10).keys()].find((i) => !isFaulty(i, 0.3))!;
  const failures = { share: 0.3, versions: ['2.0.0'] };
  expect(failuresOfDevice(failures, soundIndex)).toBeUndefined();

  const faulty = virtualInstallers(dir, failuresOfDevice(failures, faultyIndex)).get('file')!;
  await expect(faulty.install(context('2.0.0'))).rejects.toThrow(/simulated install failure: app 2.0.0/);
  expect(fs.existsSync(path.join(dir, 'root/opt/app.bin'))).toBe(false);
  await expect(faulty.install(context('1.0.0'))).resolves.toEqual({ rebootRequired: false });
  expect(fs.readFileSync(path.join(dir, 'root/opt/app.bin'), 'utf8')).toBe('new software');
  // Without versions, every install fails on a faulty device.
  await expect(virtualInstallers(dir, failuresOfDevice({ share: 0.3 }, faultyIndex)).get('file')!.install(context('1.0.0'))).rejects.toThrow();
});

it('simulates the tar, deb, rpm, rauc and swupdate installers inside the virtual device', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-installers-'));
  dirs.push(dir);
  const source = path.join(dir, 'binary');
  fs.writeFileSync(source, 'payload');
  const installers = virtualInstallers(dir);
  const context = (metadata: object) =>
    ({ file: source, entry: { artifact: { prn: 'a', name: 'app' } }, metadata: { reboot_required: false, ...metadata }, signal: new AbortController().signal }) as unknown as InstallContext;
  await expect(installers.get('tar')!.install(context({ installer: 'tar', tar: { path: '/opt/app', umask: 0o022 } }))).resolves.toEqual({ rebootRequired: false });
  expect(fs.readFileSync(path.join(dir, 'root/opt/app.tar'), 'utf8')).toBe('payload');
  await installers.get('deb')!.install(context({ installer: 'deb', deb: { allow_downgrade: false } }));
  expect(fs.existsSync(path.join(dir, 'root/var/cache/canopy/app.deb'))).toBe(true);
  await installers.get('rpm')!.install(context({ installer: 'rpm', rpm: { allow_downgrade: false } }));
  expect(fs.existsSync(path.join(dir, 'root/var/cache/canopy/app.rpm'))).toBe(true);
  // The slot installers share the device's slots: rauc writes b, swupdate then a.
  expect(await installers.get('rauc')!.install(context({ installer: 'rauc' }))).toEqual({ rebootRequired: true, slot: 'b' });
  expect(await installers.get('swupdate')!.install(context({ installer: 'swupdate' }))).toEqual({ rebootRequired: true, slot: 'a' });
  expect(await installers.get('rauc')!.confirm!({ slot: 'a' } as never)).toEqual({ result: 'confirmed', slot: 'a' });
  expect(fs.readFileSync(path.join(dir, 'root/slots/b'), 'utf8')).toBe('payload');
});

describe('soakFailureOfDevice', () => {
  it('fails a faulty device\'s health check after its passing checks, for the chosen versions only', () => {
    const failures = { share: 0.3, versions: ['3.0.0'], passingChecks: 2 };
    expect(soakFailureOfDevice(failures, 0)).toBeUndefined();
    const check = soakFailureOfDevice(failures, 3)!;
    expect([check('3.0.0'), check('3.0.0'), check('3.0.0'), check('3.0.0')]).toEqual([false, false, true, true]);
    expect(check('2.0.0')).toBe(false);
    expect(check(null)).toBe(false);
  });
});
