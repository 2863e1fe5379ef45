/**
 * What `canopy-daemon init` writes into the trial directory, as data: the file names, the
 * configuration, the custom metadata its binaries carry, and the release key's PEM. Pure.
 */
import { signingKeyPublicKey } from '@canopy/sdk/signing';
import path from 'node:path';

export const TRIAL_FILES = {
  config: 'canopy-daemon.json',
  certificate: 'device.pem',
  key: 'device-key.pem',
  serverCa: 'server-ca.pem',
  releaseKey: 'release.pub.pem',
  metadata: 'custom-metadata.json',
} as const;

/** Where the trial's `file` installer writes, and where its reboot command records. */
export const trialTarget = (dir: string) => path.join(dir, 'installed', 'app.bin');
export const rebootLog = (dir: string) => path.join(dir, 'reboots.log');

export function trialConfig(dir: string, deviceUrl: string, poll: number): Record<string, unknown> {
  const at = (name: string) => path.join(dir, name);
  return {
    device_api: {
      url: deviceUrl,
      certificate_path: at(TRIAL_FILES.certificate),
      private_key_path: at(TRIAL_FILES.key),
      server_ca_path: at(TRIAL_FILES.serverCa),
    },
    update_poll_interval: poll,
    update_jitter: 0,
    trusted_signing_keys: [at(TRIAL_FILES.releaseKey)],
    download_dir: at('downloads'),
    state_dir: at('state'),
    // Never reboots this machine: appends a line to reboots.log ($0 is the file, so any path works).
    reboot_command: ['sh', '-c', 'echo "reboot requested at $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$0"', rebootLog(dir)],
    remote_access_tunnels: { enabled: false },
  };
}

/** The custom metadata a binary of this trial needs: the `file` installer into DIR, no reboot. */
export function trialMetadata(dir: string): Record<string, unknown> {
  return { canopy: { installer: 'file', file: { path: trialTarget(dir), mode: '0644' }, reboot_required: false } };
}

/** A signing key's stored value (base64 of the raw 32 bytes, or a PEM SPKI) as a PEM public key. */
export const signingKeyPem = (value: string): string => signingKeyPublicKey(value).export({ type: 'spki', format: 'pem' }).toString();
