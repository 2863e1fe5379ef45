/**
 * The per-run disks of the VM test: a copy of the cached system disk (sparse), and the data disk
 * holding what belongs to the device rather than to a slot (its certificate and key, the server's
 * CA, the configuration, and the daemon's state and downloads), and reading grubenv back from the
 * boot partition with debugfs and GRUB's own grub-editenv once the machine is off.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseEditenvList } from '../../src/grub-env/grub-env';
import type { DeviceFiles } from '../support/harness';

/** The daemon's configuration inside the guest: GRUB's environment, the two slot partitions. */
export function guestConfig(deviceApiUrl: string) {
  return {
    device_api: { url: deviceApiUrl, certificate_path: '/data/canopy/device.pem', private_key_path: '/data/canopy/device-key.pem', server_ca_path: '/data/canopy/server-ca.pem' },
    update_poll_interval: 10,
    update_jitter: 0,
    trusted_signing_keys: ['/data/canopy/signing.pub.pem'],
    download_dir: '/data/canopy/downloads',
    state_dir: '/data/canopy/state',
    install_timeout: 900,
    health_check: '/usr/local/sbin/canopy-health-check',
    reboot_command: ['/usr/local/sbin/canopy-reboot'],
    remote_access_tunnels: { enabled: false },
    log_level: 'info',
    grub_environment: { file: '/boot-env/grub/grubenv' },
    avocado_ab: { slots: { a: '/dev/vda2', b: '/dev/vda3' } },
  };
}

export function makeDataDisk(file: string, device: DeviceFiles, signingKey: string, config: object, sizeMib: number): void {
  const tree = `${file}.tree`;
  const dir = path.join(tree, 'canopy');
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(device.certPath, path.join(dir, 'device.pem'));
  fs.copyFileSync(device.keyPath, path.join(dir, 'device-key.pem'));
  fs.copyFileSync(device.caPath, path.join(dir, 'server-ca.pem'));
  fs.copyFileSync(signingKey, path.join(dir, 'signing.pub.pem'));
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
  execFileSync('mkfs.ext4', ['-q', '-F', '-L', 'data', '-d', tree, file, `${sizeMib}M`]);
  fs.rmSync(tree, { recursive: true });
}

/** A sparse copy of the cached disk for one machine. */
export function copyDisk(from: string, to: string): void {
  execFileSync('cp', ['--sparse=always', from, to]);
}

/** grubenv as GRUB will read it at the next boot (the machine must be off). */
export function readGrubenv(disk: string): Map<string, string> {
  const boot = `${disk}.boot`;
  const env = `${disk}.grubenv`;
  execFileSync('dd', [`if=${disk}`, `of=${boot}`, 'bs=1M', 'skip=1', 'count=8', 'status=none']);
  execFileSync('debugfs', ['-R', `dump /grub/grubenv ${env}`, boot], { stdio: 'ignore' });
  const listed = execFileSync('grub-editenv', [env, 'list'], { encoding: 'utf8' });
  fs.rmSync(boot);
  fs.rmSync(env);
  return parseEditenvList(listed);
}
