/**
 * The VM test's disk and release images (build-image.sh), cached under
 * `os.tmpdir()/canopy-vm-cache/<hash of the inputs>` so a re-run on the same machine starts at
 * once; the debootstrap tree is cached on its own (keyed by the mirror and the script's
 * debootstrap line), so a change to the daemon rebuilds only the images. A clean CI machine
 * builds everything.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SCRIPT = path.join(HERE, 'build-image.sh');
const INPUTS = ['build-image.sh', 'grub.cfg', 'initramfs-init.sh', 'guest-init.sh'].map((f) => path.join(HERE, f));
const TOOLS = ['qemu-system-x86_64', 'debootstrap', 'grub-mkimage', 'grub-editenv', 'mkfs.ext4', 'sfdisk', 'cpio', 'debugfs'];

/** Why the VM test cannot run here, or null. */
export function vmUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'needs root (debootstrap chroots)';
  const missing = TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
  return missing.length ? `missing ${missing.join(', ')} (.ci/run installs them)` : null;
}

/** The Debian mirror apt uses here (deb.debian.org when none is found), so debootstrap uses the same. */
export function debianMirror(): string {
  const files = ['/etc/apt/sources.list', ...(fs.existsSync('/etc/apt/sources.list.d') ? fs.readdirSync('/etc/apt/sources.list.d').map((f) => `/etc/apt/sources.list.d/${f}`) : [])];
  for (const file of files) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const deb822 = text.split(/\n\s*\n/).find((stanza) => /^Suites:.*\bbookworm\b/m.test(stanza) && /^URIs:/m.test(stanza));
    const uri = deb822?.match(/^URIs:\s*(\S+)/m)?.[1] ?? text.match(/^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s/m)?.[1];
    if (uri && !uri.includes('security')) return uri;
  }
  return 'http://deb.debian.org/debian';
}

export interface VmImages {
  dir: string;
  /** The disk: MBR + GRUB, boot partition (grubenv), slot a and slot b both holding v1. */
  disk: string;
  /** Root file system images: v1 (on the disk), v2-good (health check passes), v2-bad (it fails). */
  rootfs: (name: 'v1' | 'v2-good' | 'v2-bad') => string;
  /** How long the build took (0 when cached). */
  buildSeconds: number;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

export function vmImages(daemonBundle: string, node = process.execPath): VmImages {
  const mirror = debianMirror();
  const cacheRoot = path.join(os.tmpdir(), 'canopy-vm-cache');
  const debootstrapLine = fs.readFileSync(SCRIPT, 'utf8').match(/^\s*debootstrap .*$/m)?.[0] ?? '';
  const debootstrapTar = path.join(cacheRoot, `debootstrap-${sha256(mirror + debootstrapLine).slice(0, 16)}.tar`);
  const key = sha256([mirror, ...INPUTS.map((f) => fs.readFileSync(f, 'utf8')), sha256(fs.readFileSync(daemonBundle)), sha256(fs.readFileSync(node))].join('\0')).slice(0, 16);
  const dir = path.join(cacheRoot, key);
  const images: Omit<VmImages, 'buildSeconds'> = { dir, disk: path.join(dir, 'disk.img'), rootfs: (name) => path.join(dir, `${name}.ext4`) };
  if (fs.existsSync(path.join(dir, 'complete'))) return { ...images, buildSeconds: 0 };
  const started = Date.now();
  fs.mkdirSync(cacheRoot, { recursive: true });
  const building = fs.mkdtempSync(path.join(cacheRoot, 'building-'));
  execFileSync('bash', [SCRIPT, building, daemonBundle, node, mirror, debootstrapTar], { stdio: ['ignore', 'inherit', 'inherit'] });
  fs.writeFileSync(path.join(building, 'complete'), '');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(building, dir);
  return { ...images, buildSeconds: (Date.now() - started) / 1000 };
}
