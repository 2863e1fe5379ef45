import { describe, expect, it } from 'vitest';
import { applyEnvironmentOverrides, ConfigError, validateConfig } from './schema.ts';

const minimal = {
  device_api: { url: 'https://devices.example.com:4001', certificate_path: '/d/device.pem', private_key_path: '/d/device-key.pem' },
  trusted_signing_keys: ['/k/release.pub.pem'],
  remote_access_tunnels: { cidr_blocks: ['10.250.0.0/16', '10.251.0.0/16'] },
};

const problem = (input: unknown): string => {
  try {
    validateConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return 'valid';
};

describe('validateConfig', () => {
  it('applies every documented default', () => {
    expect(validateConfig(minimal)).toEqual({
      device_api: minimal.device_api,
      update_poll_interval: 300,
      update_jitter: 30,
      trusted_signing_keys: ['/k/release.pub.pem'],
      signature_threshold: 1,
      bundle_signature_threshold: 0,
      download_dir: '/data/canopy/downloads',
      state_dir: '/data/canopy/state',
      install_timeout: 1800,
      reboot_command: ['systemctl', 'reboot'],
      remote_access_tunnels: { enabled: true, port_ranges: ['22'], cidr_blocks: ['10.250.0.0/16', '10.251.0.0/16'], shell: true },
      tunnel_poll_interval: 10,
      deltas: { enabled: true, keep_base: false, zstd: 'zstd' },
      log_level: 'info',
    });
  });

  it('takes every key of the schema', () => {
    const full = {
      ...minimal,
      device_api: { ...minimal.device_api, server_ca_path: '/etc/canopy/server-ca.pem' },
      update_poll_interval: 10,
      update_jitter: 0,
      trusted_signing_keys: ['/k/a.pem', '/k/b.pem'],
      signature_threshold: 2,
      download_dir: '/x/downloads',
      state_dir: '/x/state',
      install_timeout: 60,
      health_check: '/usr/bin/health',
      reboot_command: ['/sbin/reboot', '-f'],
      readiness_command: ['/usr/bin/ready-to-update', '--quiet'],
      readiness_timeout: 10,
      remote_access_tunnels: { enabled: true, port_ranges: ['22', '8080-8090'], cidr_blocks: ['10.250.0.0/16', 'fd00:1::/64'], shell: false },
      tunnel_poll_interval: 5,
      uboot_environment: {
        copies: [
          { device: '/dev/mmcblk0boot0', offset: '0x3f8000', size: '0x4000' },
          { device: '/dev/mmcblk0boot0', offset: '0x3fc000', size: '0x4000', sector_size: '0x1000' },
        ],
        variables: { active_slot: 'slot', upgrade_available: 'upgrade', boot_count: 'count', boot_limit: 'limit' },
      },
      avocado_ab: { slots: { a: '/dev/mmcblk0p2', b: '/dev/mmcblk0p3' } },
      deltas: { enabled: false, keep_base: true, zstd: '/usr/local/bin/zstd' },
      log_level: 'debug',
    };
    const config = validateConfig(full);
    expect(config.uboot_environment).toEqual({
      copies: [
        { device: '/dev/mmcblk0boot0', offset: 0x3f8000, size: 0x4000 },
        { device: '/dev/mmcblk0boot0', offset: 0x3fc000, size: 0x4000, sector_size: 0x1000 },
      ],
      variables: { active_slot: 'slot', upgrade_available: 'upgrade', boot_count: 'count', boot_limit: 'limit' },
    });
    expect(config).toMatchObject({ remote_access_tunnels: { shell: false }, signature_threshold: 2, health_check: '/usr/bin/health', reboot_command: ['/sbin/reboot', '-f'], readiness_command: ['/usr/bin/ready-to-update', '--quiet'], readiness_timeout: 10, avocado_ab: full.avocado_ab, deltas: full.deltas, log_level: 'debug', update_jitter: 0 });
    expect(problem({ ...minimal, deltas: { keep_base: 'yes' } })).toBe('deltas.keep_base: must be true or false');
  });

  it('refuses unknown keys at any depth, naming the path', () => {
    expect(problem({ ...minimal, update_pol_interval: 5 })).toBe('update_pol_interval: unknown key');
    expect(problem({ ...minimal, device_api: { ...minimal.device_api, cert: 'x' } })).toBe('device_api.cert: unknown key');
    expect(problem({ ...minimal, remote_access_tunnels: { ...minimal.remote_access_tunnels, ports: [] } })).toBe('remote_access_tunnels.ports: unknown key');
    expect(problem({ ...minimal, uboot_environment: { copies: [{ device: '/f', offset: '0', size: '0x4000', flags: 1 }] } })).toBe('uboot_environment.copies[0].flags: unknown key');
  });

  it('refuses bad values, naming the path', () => {
    expect(problem([])).toBe('(top level): must be an object');
    expect(problem({ ...minimal, device_api: undefined })).toBe('device_api: is required');
    expect(problem({ ...minimal, device_api: { ...minimal.device_api, url: 'http://x:4001' } })).toMatch(/^device_api\.url: must be an https/);
    expect(problem({ ...minimal, device_api: { ...minimal.device_api, private_key_path: undefined } })).toBe('device_api.private_key_path: is required');
    expect(problem({ ...minimal, update_poll_interval: 9 })).toBe('update_poll_interval: must be from 10 to 604800');
    expect(problem({ ...minimal, update_jitter: 1.5 })).toBe('update_jitter: must be an integer');
    expect(problem({ ...minimal, trusted_signing_keys: [] })).toBe('trusted_signing_keys: needs at least 1 item');
    expect(problem({ ...minimal, trusted_signing_keys: ['relative.pem'] })).toBe('trusted_signing_keys[0]: must be an absolute path');
    expect(problem({ ...minimal, signature_threshold: 2 })).toMatch(/^signature_threshold: needs 2 distinct/);
    expect(problem({ ...minimal, bundle_signature_threshold: 2 })).toMatch(/^bundle_signature_threshold: needs 2 distinct/);
    expect(problem({ ...minimal, bundle_signature_threshold: -1 })).toMatch(/^bundle_signature_threshold: /);
    expect(problem({ ...minimal, install_timeout: 0 })).toBe('install_timeout: must be from 1 to 86400');
    expect(problem({ ...minimal, log_level: 'verbose' })).toBe('log_level: must be one of error, warn, info, debug');
    expect(problem({ ...minimal, remote_access_tunnels: { cidr_blocks: ['10.250.0.0/16'] } })).toMatch(/^remote_access_tunnels\.cidr_blocks: needs at least two/);
    expect(problem({ ...minimal, remote_access_tunnels: { cidr_blocks: ['10.250.0.0/16', '8.8.8.0/24'] } })).toMatch(/^remote_access_tunnels\.cidr_blocks\[1\]: must be a private range/);
    expect(problem({ ...minimal, remote_access_tunnels: { enabled: 'yes' } })).toBe('remote_access_tunnels.enabled: must be true or false');
    expect(problem({ ...minimal, remote_access_tunnels: { ...minimal.remote_access_tunnels, shell: 'off' } })).toBe('remote_access_tunnels.shell: must be true or false');
    expect(problem({ ...minimal, remote_access_tunnels: { ...minimal.remote_access_tunnels, port_ranges: ['90-80'] } })).toMatch(/^remote_access_tunnels\.port_ranges\[0\]/);
    expect(problem({ ...minimal, uboot_environment: { copies: [] } })).toBe('uboot_environment.copies: needs at least 1 item');
    expect(problem({ ...minimal, uboot_environment: { copies: [{ device: '/f', offset: 'zz', size: '0x4000' }] } })).toMatch(/^uboot_environment\.copies\[0\]\.offset: must be a hex/);
    expect(problem({ ...minimal, avocado_ab: { slots: { a: '/dev/x', b: '/dev/x' } } })).toBe('avocado_ab.slots.b: must differ from slot a');
    expect(problem({ ...minimal, reboot_command: [] })).toBe('reboot_command: needs at least 1 item');
    expect(problem({ ...minimal, readiness_command: ['ready'] })).toBe('readiness_command[0]: must be an absolute path');
    expect(problem({ ...minimal, readiness_timeout: 0 })).toMatch(/^readiness_timeout: /);
  });

  it('takes tunnels off without CIDR blocks', () => {
    expect(problem({ ...minimal, remote_access_tunnels: { enabled: false } })).toBe('valid');
  });
});

describe('applyEnvironmentOverrides', () => {
  it('replaces top-level scalars from CANOPY_DAEMON_<KEY>, integers as numbers', () => {
    const config = validateConfig(applyEnvironmentOverrides(minimal, { CANOPY_DAEMON_LOG_LEVEL: 'debug', CANOPY_DAEMON_UPDATE_POLL_INTERVAL: '60' }));
    expect(config).toMatchObject({ log_level: 'debug', update_poll_interval: 60 });
    expect(problem(applyEnvironmentOverrides(minimal, { CANOPY_DAEMON_UPDATE_POLL_INTERVAL: 'often' }))).toBe('update_poll_interval: must be an integer');
  });
});
