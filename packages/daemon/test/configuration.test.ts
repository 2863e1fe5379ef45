/**
 * The configuration as the daemon process sees it: `check-config` on a file that uses every
 * documented key (with real certificate, key and signing-key files), and bad files refused with
 * the key's path and exit code 2, by `check-config` and by a start alike, never echoing a key.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeLeafCertificate, makeRootCa } from '../../server/test/support/certificates';
import { bundleDaemon, DAEMON_BUNDLE, removeTemporaryDirs, temporaryDir } from './support/harness';

const exec = promisify(execFile);
let dir: string;
let files: Record<string, string>;

beforeAll(async () => {
  bundleDaemon();
  dir = temporaryDir();
  const ca = await makeRootCa();
  const leaf = await makeLeafCertificate(ca, 'config-device');
  const write = (name: string, content: string | Buffer, mode = 0o644) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content, { mode });
    return file;
  };
  const ed = () => generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' });
  const keyA = ed();
  files = {
    cert: write('device.pem', leaf.certPem),
    key: write('device-key.pem', leaf.keyPem, 0o600),
    ca: write('server-ca.pem', ca.certPem),
    a: write('a.pub.pem', keyA),
    aAgain: write('a-again.pub.pem', keyA),
    b: write('b.pub.pem', ed()),
    rsa: write('rsa.pub.pem', generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'pem', type: 'spki' })),
    health: write('health.sh', '#!/bin/sh\nexit 0\n', 0o755),
    notExecutable: write('not-executable.sh', '#!/bin/sh\n', 0o644),
  };
});
afterAll(() => removeTemporaryDirs());

const everyKey = () => ({
  device_api: { url: 'https://devices.example.com:4001', certificate_path: files.cert, private_key_path: files.key, server_ca_path: files.ca },
  update_poll_interval: 60,
  update_jitter: 5,
  trusted_signing_keys: [files.a, files.b],
  signature_threshold: 2,
  download_dir: path.join(dir, 'downloads'),
  state_dir: path.join(dir, 'state'),
  install_timeout: 900,
  health_check: files.health,
  reboot_command: ['/sbin/reboot'],
  remote_access_tunnels: { enabled: true, port_ranges: ['22', '8080-8090'], cidr_blocks: ['10.250.0.0/16', '10.251.0.0/16'] },
  tunnel_poll_interval: 10,
  uboot_environment: {
    copies: [
      { device: path.join(dir, 'uboot.env'), offset: '0x0', size: '0x4000' },
      { device: path.join(dir, 'uboot.env'), offset: '0x4000', size: '0x4000' },
    ],
    variables: { active_slot: 'canopy_active_slot', upgrade_available: 'canopy_upgrade_available', boot_count: 'canopy_boot_count' },
  },
  avocado_ab: { slots: { a: path.join(dir, 'slot-a.img'), b: path.join(dir, 'slot-b.img') } },
  log_level: 'warn',
});

async function daemon(args: string[], config: unknown, env: Record<string, string> = {}) {
  const file = path.join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  try {
    const { stdout, stderr } = await exec(process.execPath, [DAEMON_BUNDLE, ...args, '--config', file], { env: { PATH: process.env.PATH!, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('check-config', () => {
  it('accepts a file that sets every documented key', async () => {
    const result = await daemon(['check-config'], everyKey());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/valid \(2 trusted signing keys, threshold 2\)/);
  });

  const refusals: Array<[string, (c: any) => unknown, RegExp, Record<string, string>?]> = [
    ['an unknown top-level key', (c) => ({ ...c, update_pol_interval: 60 }), /: update_pol_interval: unknown key$/m],
    ['an unknown nested key', (c) => ({ ...c, remote_access_tunnels: { ...c.remote_access_tunnels, port_range: ['22'] } }), /remote_access_tunnels\.port_range: unknown key/],
    ['an unknown key in a list item', (c) => ({ ...c, uboot_environment: { copies: [{ ...c.uboot_environment.copies[0], flags: 1 }] } }), /uboot_environment\.copies\[0\]\.flags: unknown key/],
    [
      'two U-Boot environment copies that overlap on one device',
      (c) => ({ ...c, uboot_environment: { copies: [c.uboot_environment.copies[0], { ...c.uboot_environment.copies[1], offset: '0x2000' }] } }),
      /: uboot_environment\.copies\[1\]: the two copies overlap$/m,
    ],
    ['a value of the wrong type', (c) => ({ ...c, update_jitter: '5' }), /update_jitter: must be an integer/],
    ['a poll interval below the minimum', (c) => ({ ...c, update_poll_interval: 5 }), /update_poll_interval: must be from 10/],
    ['a missing required key', (c) => ({ ...c, trusted_signing_keys: undefined }), /trusted_signing_keys: is required/],
    ['not JSON', () => '{"device_api": ', /\(file\): not valid JSON/],
    ['a certificate that is not one', (c) => ({ ...c, device_api: { ...c.device_api, certificate_path: files.a } }), /device_api\.certificate_path: is not a PEM certificate/],
    ['a private key that is not one', (c) => ({ ...c, device_api: { ...c.device_api, private_key_path: files.cert } }), /device_api\.private_key_path: is not a PEM private key/],
    ['a missing file', (c) => ({ ...c, device_api: { ...c.device_api, server_ca_path: path.join(dir, 'missing.pem') } }), /device_api\.server_ca_path: cannot read .* \(ENOENT\)/],
    ['a trusted key that is not Ed25519', (c) => ({ ...c, trusted_signing_keys: [files.a, files.rsa] }), /trusted_signing_keys\[1\]: .* is not an Ed25519 key/],
    ['a threshold above the distinct trusted keys', (c) => ({ ...c, trusted_signing_keys: [files.a, files.aAgain] }), /signature_threshold: needs 2 distinct trusted keys but the files hold 1/],
    ['a health check that cannot run', (c) => ({ ...c, health_check: files.notExecutable }), /health_check: .* is not an executable file/],
    ['a bad environment override', (c) => c, /update_poll_interval: must be an integer/, { CANOPY_DAEMON_UPDATE_POLL_INTERVAL: 'often' }],
  ];
  for (const [what, change, message, env] of refusals) {
    it(`refuses ${what}, naming the key`, async () => {
      const result = await daemon(['check-config'], change(everyKey()), env);
      expect(result.code, result.stdout).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain('PRIVATE KEY');
    });
  }

  it('takes environment overrides of top-level scalars', async () => {
    const result = await daemon(['check-config'], { ...everyKey(), signature_threshold: 1 }, { CANOPY_DAEMON_SIGNATURE_THRESHOLD: '2' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/threshold 2/);
  });
});

describe('run and status', () => {
  it('a start with a bad file exits 2 before doing anything', async () => {
    const result = await daemon([], { ...everyKey(), log_level: 'loud' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/log_level: must be one of error, warn, info, debug/);
    expect(result.stdout).toBe('');
    expect(fs.existsSync(path.join(dir, 'state'))).toBe(false);
  });

  it('status before the first start says nothing is known yet', async () => {
    const result = await daemon(['status'], everyKey());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^release:\s+\(unknown\)$/m);
    expect(result.stdout).toMatch(/^install:\s+none in progress$/m);
    expect(result.stdout).toMatch(/^last check:\s+\(never\)$/m);
  });

  it('refuses unknown arguments with the usage', async () => {
    const result = await daemon(['--frobnicate'], everyKey());
    expect(result.code).toBe(64);
    expect(result.stderr).toMatch(/unknown argument --frobnicate/);
  });
});
