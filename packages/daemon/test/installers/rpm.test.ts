/**
 * The rpm installer with Debian's rpm, into a scratch root (rpm --root, its own database) so the
 * machine is untouched: packages are built here with rpmbuild.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRpmInstaller } from '../../src/installers/rpm.ts';
import { contextFor, scratch, type Scratch } from '../support/installer-context.ts';

let s: Scratch;
let root: string;
beforeAll(() => {
  s = scratch('rpm');
  root = path.join(s.dir, 'root');
  fs.mkdirSync(root, { recursive: true });
  execFileSync('rpm', ['--root', root, '--initdb']);
});
afterAll(() => s.remove());

/** A real .rpm of canopy-hello at `version`-`release`, installing /opt/hello/version. */
function rpm(version: string, release = '1', requires?: string): string {
  const top = path.join(s.dir, `build-${version}-${release}`);
  for (const dir of ['SPECS', 'RPMS', 'BUILD', 'BUILDROOT', 'SOURCES', 'SRPMS']) fs.mkdirSync(path.join(top, dir), { recursive: true });
  const spec = [
    'Name: canopy-hello',
    `Version: ${version}`,
    `Release: ${release}`,
    'Summary: test package',
    'License: Apache-2.0',
    'BuildArch: noarch',
    'AutoReqProv: no',
    ...(requires ? [`Requires: ${requires}`] : []),
    '%description',
    'A test package.',
    '%install',
    'mkdir -p %{buildroot}/opt/hello',
    `echo ${version}-${release} > %{buildroot}/opt/hello/version`,
    '%files',
    '/opt/hello/version',
  ].join('\n');
  const specFile = path.join(top, 'SPECS/hello.spec');
  fs.writeFileSync(specFile, `${spec}\n`);
  execFileSync('rpmbuild', ['--define', `_topdir ${top}`, '--define', '_build_id_links none', '-bb', specFile], { stdio: 'ignore' });
  return path.join(top, 'RPMS/noarch', `canopy-hello-${version}-${release}.noarch.rpm`);
}

const installed = () => fs.readFileSync(path.join(root, 'opt/hello/version'), 'utf8').trim();
const dbVersion = () => execFileSync('rpm', ['--root', root, '-q', '--qf', '%{VERSION}-%{RELEASE}', 'canopy-hello'], { encoding: 'utf8' }).trim();

it('installs and upgrades a package, refuses a downgrade unless the metadata allows it', async () => {
  const installer = createRpmInstaller({ root });
  expect(installer.unavailable!(s.config)).toBeNull();
  await expect(installer.install(contextFor(s, rpm('1.0'), { installer: 'rpm', reboot_required: false }))).resolves.toEqual({ rebootRequired: false });
  expect([installed(), dbVersion()]).toEqual(['1.0-1', '1.0-1']);
  await installer.install(contextFor(s, rpm('1.2'), { installer: 'rpm' }));
  expect([installed(), dbVersion()]).toEqual(['1.2-1', '1.2-1']);
  // Same version again (a re-run after a power cut): allowed.
  await installer.install(contextFor(s, rpm('1.2'), { installer: 'rpm' }));
  expect(dbVersion()).toBe('1.2-1');

  const older = rpm('1.1');
  await expect(installer.install(contextFor(s, older, { installer: 'rpm' }))).rejects.toThrow(
    'canopy-hello 1.1-1 is older than the installed 1.2-1; set custom_metadata.canopy.rpm.allow_downgrade to install it',
  );
  expect(dbVersion()).toBe('1.2-1');
  await installer.install(contextFor(s, older, { installer: 'rpm', rpm: { allow_downgrade: true } }));
  expect([installed(), dbVersion()]).toEqual(['1.1-1', '1.1-1']);
  // rpm's version order, not string order: 1.10 is newer than 1.9.
  await installer.install(contextFor(s, rpm('1.9'), { installer: 'rpm' }));
  await installer.install(contextFor(s, rpm('1.10'), { installer: 'rpm' }));
  expect(installed()).toBe('1.10-1');
});

it("reports rpm's own complaint: an unmet dependency, a file that is no package", async () => {
  const installer = createRpmInstaller({ root });
  await expect(installer.install(contextFor(s, rpm('2.0', '1', 'canopy-missing >= 1'), { installer: 'rpm' }))).rejects.toThrow(/rpm -U failed \(exit \d+\): .*canopy-missing/);
  expect(dbVersion()).toBe('1.10-1');
  const junk = path.join(s.dir, 'junk.rpm');
  fs.writeFileSync(junk, 'not an rpm');
  await expect(installer.install(contextFor(s, junk, { installer: 'rpm' }))).rejects.toThrow(/rpm -qp failed/);
});

it('is unavailable on a device without rpm', () => {
  const saved = process.env.PATH;
  process.env.PATH = s.dir;
  try {
    expect(createRpmInstaller().unavailable!(s.config)).toBe("rpm needs rpm on the device's PATH");
  } finally {
    process.env.PATH = saved;
  }
});
