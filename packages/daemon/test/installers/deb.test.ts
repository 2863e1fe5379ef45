/**
 * The deb installer with Debian's dpkg, into a scratch root (dpkg --root) so the machine's own
 * package database is untouched: packages are built here with dpkg-deb.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDebInstaller } from '../../src/installers/deb.ts';
import { contextFor, scratch, type Scratch } from '../support/installer-context.ts';

let s: Scratch;
let root: string;
beforeAll(() => {
  s = scratch('deb');
  root = path.join(s.dir, 'root');
  for (const dir of ['var/lib/dpkg/info', 'var/lib/dpkg/updates']) fs.mkdirSync(path.join(root, dir), { recursive: true });
  fs.writeFileSync(path.join(root, 'var/lib/dpkg/status'), '');
});
afterAll(() => s.remove());

/** A real .deb of canopy-hello at `version`, installing /opt/hello/version. */
function deb(version: string, depends?: string): string {
  const src = path.join(s.dir, `pkg-${version}`);
  fs.mkdirSync(path.join(src, 'DEBIAN'), { recursive: true });
  fs.mkdirSync(path.join(src, 'opt/hello'), { recursive: true });
  const control = ['Package: canopy-hello', `Version: ${version}`, 'Architecture: all', 'Maintainer: Canopy <canopy@example.com>', 'Description: test package'];
  if (depends) control.push(`Depends: ${depends}`);
  fs.writeFileSync(path.join(src, 'DEBIAN/control'), `${control.join('\n')}\n`);
  fs.writeFileSync(path.join(src, 'opt/hello/version'), `${version}\n`);
  const out = path.join(s.dir, `canopy-hello_${version}_all.deb`);
  execFileSync('dpkg-deb', ['--root-owner-group', '-b', src, out], { stdio: 'ignore' });
  return out;
}

const installed = () => fs.readFileSync(path.join(root, 'opt/hello/version'), 'utf8').trim();
const dbVersion = () =>
  execFileSync('dpkg-query', [`--admindir=${root}/var/lib/dpkg`, '--showformat=${Version} ${db:Status-Abbrev}', '--show', 'canopy-hello'], { encoding: 'utf8' }).trim();

it('installs and upgrades a package, refuses a downgrade unless the metadata allows it', async () => {
  const installer = createDebInstaller({ root });
  expect(installer.unavailable!(s.config)).toBeNull();
  await expect(installer.install(contextFor(s, deb('1.0-1'), { installer: 'deb', reboot_required: false }))).resolves.toEqual({ rebootRequired: false });
  expect([installed(), dbVersion()]).toEqual(['1.0-1', '1.0-1 ii']);
  await installer.install(contextFor(s, deb('1.2-1'), { installer: 'deb' }));
  expect([installed(), dbVersion()]).toEqual(['1.2-1', '1.2-1 ii']);
  // Same version again (a re-run after a power cut): allowed.
  await installer.install(contextFor(s, deb('1.2-1'), { installer: 'deb' }));

  const older = deb('1.1-1');
  await expect(installer.install(contextFor(s, older, { installer: 'deb' }))).rejects.toThrow(
    'canopy-hello 1.1-1 is older than the installed 1.2-1; set custom_metadata.canopy.deb.allow_downgrade to install it',
  );
  expect(dbVersion()).toBe('1.2-1 ii');
  await installer.install(contextFor(s, older, { installer: 'deb', deb: { allow_downgrade: true } }));
  expect([installed(), dbVersion()]).toEqual(['1.1-1', '1.1-1 ii']);
  // Debian version order, not string order: 1.10 is newer than 1.9.
  await installer.install(contextFor(s, deb('1.9-1'), { installer: 'deb' }));
  await installer.install(contextFor(s, deb('1.10-1'), { installer: 'deb' }));
  expect(installed()).toBe('1.10-1');
});

it('reports dpkg\'s own complaint: an unmet dependency, a file that is no package', async () => {
  const installer = createDebInstaller({ root });
  await expect(installer.install(contextFor(s, deb('2.0-1', 'canopy-missing (>= 1)'), { installer: 'deb' }))).rejects.toThrow(/dpkg --install failed \(exit 1\): .*canopy-hello/);
  const junk = path.join(s.dir, 'junk.deb');
  fs.writeFileSync(junk, 'not an ar archive');
  await expect(installer.install(contextFor(s, junk, { installer: 'deb' }))).rejects.toThrow(/dpkg-deb failed/);
});

it('is unavailable on a device without dpkg', () => {
  const saved = process.env.PATH;
  process.env.PATH = s.dir;
  try {
    expect(createDebInstaller().unavailable!(s.config)).toBe('deb needs dpkg, dpkg-deb, dpkg-query on the device\'s PATH');
  } finally {
    process.env.PATH = saved;
  }
});
