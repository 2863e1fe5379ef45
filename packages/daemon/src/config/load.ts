/**
 * Reads the configuration file, applies `CANOPY_DAEMON_*` overrides, validates it (schema.ts),
 * then reads every file it names, so `check-config` and a start both fail before doing anything
 * when a certificate, key or trusted signing key is missing or is not what it should be.
 */
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import { applyEnvironmentOverrides, ConfigError, validateConfig } from './schema.ts';
import type { DaemonConfig } from './types.ts';

export const DEFAULT_CONFIG_PATH = '/etc/canopy/canopy-daemon.json';

/** A trusted Ed25519 public key: its raw 32 bytes identify it (two files of one key count once). */
export interface TrustedKey {
  path: string;
  key: KeyObject;
  /** Lowercase hex of the raw public key. */
  id: string;
}

export interface LoadedConfig {
  config: DaemonConfig;
  /** The PEM material for the device API's TLS. */
  tls: { certPem: Buffer; keyPem: Buffer; caPem?: Buffer };
  trustedKeys: TrustedKey[];
}

function readAt(file: string, path: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new ConfigError(path, `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

export function readConfigFile(file: string, env: Record<string, string | undefined> = process.env): DaemonConfig {
  const text = readAt(file, '(file)').toString('utf8');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError('(file)', `not valid JSON: ${(error as Error).message}`);
  }
  return validateConfig(applyEnvironmentOverrides(raw, env));
}

export function trustedKeyFrom(pem: Buffer | string, path: string, where: string): TrustedKey {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new ConfigError(where, `${path} is not a PEM public key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new ConfigError(where, `${path} is not an Ed25519 key`);
  const raw = key.export({ format: 'der', type: 'spki' }).subarray(-32);
  return { path, key, id: raw.toString('hex') };
}

/** Reads and checks every file the configuration names. */
export function loadMaterial(config: DaemonConfig): LoadedConfig {
  const certPem = readAt(config.device_api.certificate_path, 'device_api.certificate_path');
  try {
    new X509Certificate(certPem);
  } catch {
    throw new ConfigError('device_api.certificate_path', 'is not a PEM certificate');
  }
  const keyPem = readAt(config.device_api.private_key_path, 'device_api.private_key_path');
  try {
    createPrivateKey(keyPem);
  } catch {
    // Never echo the file: it holds the device's private key.
    throw new ConfigError('device_api.private_key_path', 'is not a PEM private key');
  }
  let caPem: Buffer | undefined;
  if (config.device_api.server_ca_path) {
    caPem = readAt(config.device_api.server_ca_path, 'device_api.server_ca_path');
    try {
      new X509Certificate(caPem);
    } catch {
      throw new ConfigError('device_api.server_ca_path', 'is not a PEM certificate');
    }
  }
  const trustedKeys = config.trusted_signing_keys.map((file, i) => trustedKeyFrom(readAt(file, `trusted_signing_keys[${i}]`), file, `trusted_signing_keys[${i}]`));
  const distinct = new Set(trustedKeys.map((k) => k.id)).size;
  if (distinct < config.signature_threshold) {
    throw new ConfigError('signature_threshold', `needs ${config.signature_threshold} distinct trusted keys but the files hold ${distinct}`);
  }
  if (distinct < config.bundle_signature_threshold) {
    throw new ConfigError('bundle_signature_threshold', `needs ${config.bundle_signature_threshold} distinct trusted keys but the files hold ${distinct}`);
  }
  if (config.health_check) {
    try {
      fs.accessSync(config.health_check, fs.constants.X_OK);
    } catch {
      throw new ConfigError('health_check', `${config.health_check} is not an executable file`);
    }
  }
  return { config, tls: { certPem, keyPem, caPem }, trustedKeys };
}

export function loadConfig(file: string, env: Record<string, string | undefined> = process.env): LoadedConfig {
  return loadMaterial(readConfigFile(file, env));
}
