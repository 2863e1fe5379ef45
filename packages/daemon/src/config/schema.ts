/**
 * Validates a parsed configuration file against the documented schema
 * (site/docs/canopy-core/tools/canopy-daemon/run-time-configuration/schema.md) and applies the
 * defaults. Pure: no file is read here (load.ts reads the file and the files it names).
 *
 * Every problem names the key's path (`remote_access_tunnels.cidr_blocks[1]`), and unknown keys
 * are refused, so a typo cannot silently leave a setting at its default.
 */
import type { LogLevel } from '../log.ts';
import { LocationError, locationsFromConfig } from '../uboot-env/locations.ts';
import type { DaemonConfig, UbootEnvironmentConfig } from './types.ts';

export class ConfigError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Raw = Record<string, unknown>;

const isObject = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);

function objectAt(value: unknown, path: string, allowed: readonly string[]): Raw {
  if (!isObject(value)) throw new ConfigError(path || '(top level)', 'must be an object');
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new ConfigError(path ? `${path}.${key}` : key, 'unknown key');
  }
  return value;
}

function stringAt(value: unknown, path: string, check?: (s: string) => string | null): string {
  if (typeof value !== 'string' || value.length === 0) throw new ConfigError(path, 'must be a non-empty string');
  if (value.includes('\0')) throw new ConfigError(path, 'must not contain NUL');
  const problem = check?.(value);
  if (problem) throw new ConfigError(path, problem);
  return value;
}

const absolutePath = (s: string) => (s.startsWith('/') ? null : 'must be an absolute path');

function integerAt(value: unknown, path: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new ConfigError(path, 'must be an integer');
  if (value < min || value > max) throw new ConfigError(path, max === Number.MAX_SAFE_INTEGER ? `must be at least ${min}` : `must be from ${min} to ${max}`);
  return value;
}

function listAt<T>(value: unknown, path: string, item: (v: unknown, p: string) => T, min = 0, max = 1000): T[] {
  if (!Array.isArray(value)) throw new ConfigError(path, 'must be a list');
  if (value.length < min) throw new ConfigError(path, `needs at least ${min} item${min === 1 ? '' : 's'}`);
  if (value.length > max) throw new ConfigError(path, `takes at most ${max} items`);
  return value.map((v, i) => item(v, `${path}[${i}]`));
}

/** `"0x3f8000"` (hex, as fw_env.config writes it) or a plain integer. */
function hexAt(value: unknown, path: string): number {
  if (typeof value === 'number') return integerAt(value, path, 0);
  if (typeof value !== 'string' || !/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) throw new ConfigError(path, 'must be a hex string such as "0x4000"');
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new ConfigError(path, 'is too large');
  return n;
}

/** `"22"` or `"8080-8090"`, ports 1..65535, low <= high. */
function portRangeAt(value: unknown, path: string): string {
  const text = stringAt(value, path);
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text);
  const low = match ? Number(match[1]) : NaN;
  const high = match?.[2] ? Number(match[2]) : low;
  if (!match || low < 1 || high > 65535 || low > high) throw new ConfigError(path, 'must be a port or a range such as "8080-8090" within 1-65535');
  return text;
}

function ipv4(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number);
}

/** Private IPv4 CIDRs (RFC 1918, or 100.64/10) or IPv6 ULA (fc00::/7), as tunnel interfaces need. */
function cidrAt(value: unknown, path: string): string {
  const text = stringAt(value, path);
  const [address, bits, extra] = text.split('/');
  if (extra !== undefined || bits === undefined || !/^\d{1,3}$/.test(bits)) throw new ConfigError(path, 'must be a CIDR block such as "10.250.0.0/16"');
  const v4 = ipv4(address);
  if (v4) {
    if (Number(bits) > 30) throw new ConfigError(path, 'must leave room for two addresses (at most /30)');
    const [a, b] = v4;
    const isPrivate = a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
    if (!isPrivate) throw new ConfigError(path, 'must be a private range (10/8, 172.16/12, 192.168/16, 100.64/10)');
    return text;
  }
  if (/^[0-9a-fA-F:]+$/.test(address) && address.includes(':')) {
    if (Number(bits) > 126) throw new ConfigError(path, 'must leave room for two addresses (at most /126)');
    if (!/^f[cd]/i.test(address)) throw new ConfigError(path, 'must be a unique local range (fc00::/7)');
    return text;
  }
  throw new ConfigError(path, 'must be a CIDR block such as "10.250.0.0/16"');
}

const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];

const TOP_LEVEL = [
  'device_api',
  'update_poll_interval',
  'update_jitter',
  'trusted_signing_keys',
  'signature_threshold',
  'bundle_signature_threshold',
  'download_dir',
  'state_dir',
  'install_timeout',
  'health_check',
  'reboot_command',
  'readiness_command',
  'readiness_timeout',
  'remote_access_tunnels',
  'tunnel_poll_interval',
  'uboot_environment',
  'grub_environment',
  'avocado_ab',
  'tuf',
  'deltas',
  'log_level',
] as const;

/** Top-level keys with a scalar value: the ones `CANOPY_DAEMON_<KEY>` may override. */
export const SCALAR_KEYS = ['update_poll_interval', 'update_jitter', 'signature_threshold', 'bundle_signature_threshold', 'download_dir', 'state_dir', 'install_timeout', 'health_check', 'tunnel_poll_interval', 'log_level'] as const;
const INTEGER_KEYS: ReadonlySet<string> = new Set(['update_poll_interval', 'update_jitter', 'signature_threshold', 'bundle_signature_threshold', 'install_timeout', 'tunnel_poll_interval']);

/**
 * The environment overrides of the overview page: `CANOPY_DAEMON_LOG_LEVEL=debug` replaces
 * `log_level`. Integer keys take a decimal integer (else the value stays a string and fails
 * validation with the key's path, like a bad file would).
 */
export function applyEnvironmentOverrides(raw: unknown, env: Record<string, string | undefined>): unknown {
  if (!isObject(raw)) return raw;
  const out: Raw = { ...raw };
  for (const key of SCALAR_KEYS) {
    const value = env[`CANOPY_DAEMON_${key.toUpperCase()}`];
    if (value === undefined) continue;
    out[key] = INTEGER_KEYS.has(key) && /^-?\d+$/.test(value) ? Number(value) : value;
  }
  return out;
}

function ubootEnvironmentAt(value: unknown, path: string): UbootEnvironmentConfig {
  const raw = objectAt(value, path, ['copies', 'variables']);
  if (raw.copies === undefined) throw new ConfigError(`${path}.copies`, 'is required');
  const copies = listAt(
    raw.copies,
    `${path}.copies`,
    (copy, p) => {
      const c = objectAt(copy, p, ['device', 'offset', 'size', 'sector_size']);
      for (const key of ['device', 'offset', 'size']) if (c[key] === undefined) throw new ConfigError(`${p}.${key}`, 'is required');
      const size = hexAt(c.size, `${p}.size`);
      if (size < 16) throw new ConfigError(`${p}.size`, 'must be at least 0x10');
      return {
        device: stringAt(c.device, `${p}.device`, absolutePath),
        offset: hexAt(c.offset, `${p}.offset`),
        size,
        ...(c.sector_size !== undefined ? { sector_size: hexAt(c.sector_size, `${p}.sector_size`) } : {}),
      };
    },
    1,
    2,
  );
  if (copies.length === 2 && copies[0].size !== copies[1].size) throw new ConfigError(`${path}.copies[1].size`, 'must equal copies[0].size');
  // The same checks the environment code makes when it opens the copies (two copies overlapping
  // on one device would have each write destroy the other), refused here with the key's path.
  try {
    locationsFromConfig(copies, `${path}.copies`);
  } catch (error) {
    if (!(error instanceof LocationError)) throw error;
    throw new ConfigError(error.path, error.message.slice(error.path.length + 2));
  }
  return { copies, variables: variablesAt(raw.variables, `${path}.variables`) };
}

/** The trial variables' names, defaults canopy_*. GRUB scripts read only letters, digits and _. */
function variablesAt(value: unknown, path: string, grub = false): UbootEnvironmentConfig['variables'] {
  const pattern = grub ? /^[A-Za-z0-9_]+$/ : /^[A-Za-z0-9_.-]+$/;
  const message = grub ? 'must be a GRUB variable name (letters, digits, _)' : 'must be a variable name (letters, digits, _ . -)';
  const names = value === undefined ? {} : objectAt(value, path, ['active_slot', 'upgrade_available', 'boot_count', 'boot_limit']);
  const variable = (key: string, fallback: string) =>
    names[key] === undefined ? fallback : stringAt(names[key], `${path}.${key}`, (s) => (pattern.test(s) ? null : message));
  return {
    active_slot: variable('active_slot', 'canopy_active_slot'),
    upgrade_available: variable('upgrade_available', 'canopy_upgrade_available'),
    boot_count: variable('boot_count', 'canopy_boot_count'),
    boot_limit: variable('boot_limit', 'canopy_boot_limit'),
  };
}

function grubEnvironmentAt(value: unknown, path: string): NonNullable<DaemonConfig['grub_environment']> {
  const raw = objectAt(value, path, ['file', 'editenv', 'variables']);
  if (raw.file === undefined) throw new ConfigError(`${path}.file`, 'is required');
  return {
    file: stringAt(raw.file, `${path}.file`, absolutePath),
    ...(raw.editenv !== undefined ? { editenv: stringAt(raw.editenv, `${path}.editenv`) } : {}),
    variables: variablesAt(raw.variables, `${path}.variables`, true),
  };
}

/** The configuration with defaults applied, or a ConfigError naming the first bad key. */
export function validateConfig(input: unknown): DaemonConfig {
  const raw = objectAt(input, '', TOP_LEVEL);

  if (raw.device_api === undefined) throw new ConfigError('device_api', 'is required');
  const api = objectAt(raw.device_api, 'device_api', ['url', 'certificate_path', 'private_key_path', 'server_ca_path']);
  for (const key of ['url', 'certificate_path', 'private_key_path']) if (api[key] === undefined) throw new ConfigError(`device_api.${key}`, 'is required');
  const url = stringAt(api.url, 'device_api.url', (s) => {
    try {
      const parsed = new URL(s);
      return parsed.protocol === 'https:' ? null : 'must be an https:// URL (the device API uses mutual TLS)';
    } catch {
      return 'must be a URL';
    }
  });

  if (raw.trusted_signing_keys === undefined) throw new ConfigError('trusted_signing_keys', 'is required');
  const trusted = listAt(raw.trusted_signing_keys, 'trusted_signing_keys', (v, p) => stringAt(v, p, absolutePath), 1, 100);
  const threshold = raw.signature_threshold === undefined ? 1 : integerAt(raw.signature_threshold, 'signature_threshold', 1, 100);
  if (threshold > trusted.length) throw new ConfigError('signature_threshold', `needs ${threshold} distinct trusted keys but trusted_signing_keys lists ${trusted.length}`);
  // 0, the default, checks no bundle signature: fleets configured before bundle signatures keep updating.
  const bundleThreshold = raw.bundle_signature_threshold === undefined ? 0 : integerAt(raw.bundle_signature_threshold, 'bundle_signature_threshold', 0, 100);
  if (bundleThreshold > trusted.length) throw new ConfigError('bundle_signature_threshold', `needs ${bundleThreshold} distinct trusted keys but trusted_signing_keys lists ${trusted.length}`);

  const tunnels = raw.remote_access_tunnels === undefined ? {} : objectAt(raw.remote_access_tunnels, 'remote_access_tunnels', ['enabled', 'port_ranges', 'cidr_blocks', 'shell']);
  if (tunnels.enabled !== undefined && typeof tunnels.enabled !== 'boolean') throw new ConfigError('remote_access_tunnels.enabled', 'must be true or false');
  if (tunnels.shell !== undefined && typeof tunnels.shell !== 'boolean') throw new ConfigError('remote_access_tunnels.shell', 'must be true or false');
  const enabled = tunnels.enabled ?? true;
  const portRanges = tunnels.port_ranges === undefined ? ['22'] : listAt(tunnels.port_ranges, 'remote_access_tunnels.port_ranges', portRangeAt, 1, 64);
  const cidrBlocks = tunnels.cidr_blocks === undefined ? [] : listAt(tunnels.cidr_blocks, 'remote_access_tunnels.cidr_blocks', cidrAt, 0, 64);
  if (enabled && new Set(cidrBlocks).size < 2) throw new ConfigError('remote_access_tunnels.cidr_blocks', 'needs at least two distinct private ranges while tunnels are enabled');

  const rebootCommand = raw.reboot_command === undefined ? ['systemctl', 'reboot'] : listAt(raw.reboot_command, 'reboot_command', (v, p) => stringAt(v, p), 1, 32);
  if (!rebootCommand[0].startsWith('/') && rebootCommand[0].includes('/')) throw new ConfigError('reboot_command[0]', 'must be a program name or an absolute path');

  const readinessCommand = raw.readiness_command === undefined ? undefined : listAt(raw.readiness_command, 'readiness_command', (v, p) => stringAt(v, p), 1, 32);
  if (readinessCommand && !readinessCommand[0].startsWith('/')) throw new ConfigError('readiness_command[0]', 'must be an absolute path');

  let avocadoAb: DaemonConfig['avocado_ab'];
  if (raw.avocado_ab !== undefined) {
    const ab = objectAt(raw.avocado_ab, 'avocado_ab', ['slots']);
    if (ab.slots === undefined) throw new ConfigError('avocado_ab.slots', 'is required');
    const slots = objectAt(ab.slots, 'avocado_ab.slots', ['a', 'b']);
    for (const key of ['a', 'b']) if (slots[key] === undefined) throw new ConfigError(`avocado_ab.slots.${key}`, 'is required');
    avocadoAb = { slots: { a: stringAt(slots.a, 'avocado_ab.slots.a', absolutePath), b: stringAt(slots.b, 'avocado_ab.slots.b', absolutePath) } };
    if (avocadoAb.slots.a === avocadoAb.slots.b) throw new ConfigError('avocado_ab.slots.b', 'must differ from slot a');
  }

  let tuf: DaemonConfig['tuf'];
  if (raw.tuf !== undefined) {
    const t = objectAt(raw.tuf, 'tuf', ['root', 'product']);
    for (const key of ['root', 'product']) if (t[key] === undefined) throw new ConfigError(`tuf.${key}`, 'is required');
    tuf = { root: stringAt(t.root, 'tuf.root', absolutePath), product: stringAt(t.product, 'tuf.product', (v) => (/^[^/]{1,128}$/.test(v) ? null : 'must be a product name (no /)')) };
  }

  const d = raw.deltas === undefined ? {} : objectAt(raw.deltas, 'deltas', ['enabled', 'keep_base', 'zstd']);
  for (const key of ['enabled', 'keep_base']) if (d[key] !== undefined && typeof d[key] !== 'boolean') throw new ConfigError(`deltas.${key}`, 'must be true or false');
  const deltas: DaemonConfig['deltas'] = {
    enabled: (d.enabled as boolean | undefined) ?? true,
    keep_base: (d.keep_base as boolean | undefined) ?? false,
    zstd: d.zstd === undefined ? 'zstd' : stringAt(d.zstd, 'deltas.zstd', (v) => (v.startsWith('/') || !v.includes('/') ? null : 'must be a program name or an absolute path')),
  };

  const logLevel = raw.log_level === undefined ? 'info' : stringAt(raw.log_level, 'log_level');
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) throw new ConfigError('log_level', `must be one of ${LOG_LEVELS.join(', ')}`);

  return {
    device_api: {
      url,
      certificate_path: stringAt(api.certificate_path, 'device_api.certificate_path', absolutePath),
      private_key_path: stringAt(api.private_key_path, 'device_api.private_key_path', absolutePath),
      ...(api.server_ca_path !== undefined ? { server_ca_path: stringAt(api.server_ca_path, 'device_api.server_ca_path', absolutePath) } : {}),
    },
    update_poll_interval: raw.update_poll_interval === undefined ? 300 : integerAt(raw.update_poll_interval, 'update_poll_interval', 10, 7 * 86400),
    update_jitter: raw.update_jitter === undefined ? 30 : integerAt(raw.update_jitter, 'update_jitter', 0, 86400),
    trusted_signing_keys: trusted,
    signature_threshold: threshold,
    bundle_signature_threshold: bundleThreshold,
    download_dir: raw.download_dir === undefined ? '/data/canopy/downloads' : stringAt(raw.download_dir, 'download_dir', absolutePath),
    state_dir: raw.state_dir === undefined ? '/data/canopy/state' : stringAt(raw.state_dir, 'state_dir', absolutePath),
    install_timeout: raw.install_timeout === undefined ? 1800 : integerAt(raw.install_timeout, 'install_timeout', 1, 86400),
    ...(raw.health_check !== undefined ? { health_check: stringAt(raw.health_check, 'health_check', absolutePath) } : {}),
    reboot_command: rebootCommand,
    ...(readinessCommand ? { readiness_command: readinessCommand } : {}),
    ...(raw.readiness_timeout !== undefined ? { readiness_timeout: integerAt(raw.readiness_timeout, 'readiness_timeout', 1, 3600) } : {}),
    remote_access_tunnels: { enabled, port_ranges: portRanges, cidr_blocks: cidrBlocks, shell: tunnels.shell ?? true },
    tunnel_poll_interval: raw.tunnel_poll_interval === undefined ? 10 : integerAt(raw.tunnel_poll_interval, 'tunnel_poll_interval', 1, 86400),
    ...(raw.uboot_environment !== undefined ? { uboot_environment: ubootEnvironmentAt(raw.uboot_environment, 'uboot_environment') } : {}),
    ...(raw.grub_environment !== undefined ? { grub_environment: grubEnvironmentAt(raw.grub_environment, 'grub_environment') } : {}),
    ...(avocadoAb ? { avocado_ab: avocadoAb } : {}),
    ...(tuf ? { tuf } : {}),
    deltas,
    log_level: logLevel as LogLevel,
  };
}
