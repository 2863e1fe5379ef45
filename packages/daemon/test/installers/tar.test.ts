/**
 * The tar installer on archives made by GNU tar, compressed by Debian's gzip, zstd and xz: the
 * target switches from one tree to the next with one rename, ownership and modes follow the
 * metadata, and a hostile archive changes nothing.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { tarInstaller, treesDirOf } from '../../src/installers/tar.ts';
import { contextFor, scratch, type Scratch } from '../support/installer-context.ts';

const made: Scratch[] = [];
afterEach(() => made.splice(0).forEach((s) => s.remove()));
const IS_ROOT = process.getuid?.() === 0;

/** A tree with a program, a config and a relative symlink, packed by GNU tar with `compress`. */
function archive(s: Scratch, name: string, version: string, compress: string): string {
  const src = path.join(s.dir, `src-${name}`);
  fs.mkdirSync(path.join(src, 'bin'), { recursive: true });
  fs.mkdirSync(path.join(src, 'etc'));
  fs.writeFileSync(path.join(src, 'bin/app'), `#!/bin/sh\necho ${version}\n`, { mode: 0o775 });
  fs.writeFileSync(path.join(src, 'etc/app.conf'), `version=${version}\n`, { mode: 0o666 });
  fs.symlinkSync('../etc/app.conf', path.join(src, 'bin/app.conf'));
  const out = path.join(s.dir, name);
  execFileSync('tar', ['-c', compress, '-f', out, '--owner=1000', '--group=1000', '-C', src, '.']);
  return out;
}

it('installs gzip, zstd and xz archives in turn, switching the link atomically and removing older trees', async () => {
  const s = scratch('tar');
  made.push(s);
  const target = path.join(s.dir, 'opt/app');
  const canopy = { installer: 'tar', tar: { path: target, uid: 4321, gid: 8765, umask: '0027' }, reboot_required: false };
  let previous: string | null = null;
  for (const [compress, version] of [['--gzip', '1.0'], ['--zstd', '2.0'], ['--xz', '3.0']]) {
    const file = archive(s, `app-${version}.tar`, version, compress);
    const started = Date.now();
    await expect(tarInstaller.install(contextFor(s, file, canopy))).resolves.toEqual({ rebootRequired: false });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(fs.lstatSync(target).isSymbolicLink()).toBe(true);
    expect(execFileSync(path.join(target, 'bin/app'), { encoding: 'utf8' })).toBe(`${version}\n`);
    expect(fs.readFileSync(path.join(target, 'bin/app.conf'), 'utf8')).toBe(`version=${version}\n`);
    const tree = fs.realpathSync(target);
    expect(fs.readdirSync(treesDirOf(target))).toEqual([path.basename(tree)]);
    if (previous) expect(fs.existsSync(previous)).toBe(false);
    previous = tree;
    const stat = (p: string) => fs.lstatSync(path.join(tree, p));
    expect(stat('bin/app').mode & 0o7777).toBe(0o750);
    expect(stat('etc/app.conf').mode & 0o7777).toBe(0o640);
    if (IS_ROOT) {
      for (const p of ['.', 'bin', 'bin/app', 'bin/app.conf', 'etc/app.conf']) expect([stat(p).uid, stat(p).gid], p).toEqual([4321, 8765]);
    }
  }
  // Installing the same archive again (a re-run after a power cut) leaves it as it is.
  const again = path.join(s.dir, 'app-3.0.tar');
  await tarInstaller.install(contextFor(s, again, canopy));
  expect(fs.realpathSync(target)).toBe(previous);
});

it('takes over a plain directory at the first install', async () => {
  const s = scratch('tar');
  made.push(s);
  const target = path.join(s.dir, 'srv/www');
  fs.mkdirSync(target, { recursive: true });
  fs.writeFileSync(path.join(target, 'old.html'), 'old');
  await tarInstaller.install(contextFor(s, archive(s, 'www.tar.gz', '1.0', '--gzip'), { installer: 'tar', tar: { path: target } }));
  expect(fs.lstatSync(target).isSymbolicLink()).toBe(true);
  expect(fs.existsSync(path.join(target, 'old.html'))).toBe(false);
  expect(fs.readFileSync(path.join(target, 'etc/app.conf'), 'utf8')).toBe('version=1.0\n');
});

it('refuses hostile archives made by GNU tar and leaves the installed tree and the rest of the disk as they were', async () => {
  const s = scratch('tar');
  made.push(s);
  const target = path.join(s.dir, 'opt/app');
  const canopy = { installer: 'tar', tar: { path: target } };
  await tarInstaller.install(contextFor(s, archive(s, 'good.tar.zst', '1.0', '--zstd'), canopy));
  const installed = fs.realpathSync(target);
  const evil = path.join(s.dir, 'evil');
  fs.mkdirSync(evil);
  fs.writeFileSync(path.join(evil, 'payload'), 'owned');
  fs.symlinkSync('/etc', path.join(evil, 'etc-link'));
  const hostile: [string, string[], RegExp][] = [
    // -P keeps names as given; --transform makes them what an attacker would write.
    ['absolute.tar', ['-P', '--transform', `s,^.*payload$,${s.dir}/pwned,`, '-C', evil, 'payload'], /is an absolute path/],
    ['dotdot.tar.xz', ['--xz', '-P', '--transform', 's,^,../../,', '-C', evil, 'payload'], /contains \.\./],
    ['symlink.tar.gz', ['--gzip', '-C', evil, 'etc-link'], /points outside the target \(\/etc\)/],
  ];
  for (const [name, args, reason] of hostile) {
    const file = path.join(s.dir, name);
    execFileSync('tar', ['-c', '-f', file, ...args], { stdio: 'ignore' });
    await expect(tarInstaller.install(contextFor(s, file, canopy)), name).rejects.toThrow(reason);
    expect(fs.realpathSync(target)).toBe(installed);
    expect(fs.readdirSync(treesDirOf(target)), `${name}: staging left behind`).toEqual([path.basename(installed)]);
  }
  expect(fs.existsSync(path.join(s.dir, 'pwned'))).toBe(false);
  expect(fs.readdirSync(path.dirname(s.dir)).filter((n) => n === 'payload')).toEqual([]);
  // A truncated archive fails in the decompressor and changes nothing either.
  const cut = path.join(s.dir, 'cut.tar.zst');
  fs.writeFileSync(cut, fs.readFileSync(path.join(s.dir, 'good.tar.zst')).subarray(0, 60));
  await expect(tarInstaller.install(contextFor(s, cut, canopy))).rejects.toThrow();
  expect(fs.realpathSync(target)).toBe(installed);
});
