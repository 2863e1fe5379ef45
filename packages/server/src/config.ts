/**
 * Every setting of the server, read from the environment in one place and typed.
 * Nothing else reads process.env, so tests build a Config by hand and production reads it once.
 */
import path from 'node:path';

export interface Config {
  /** postgres://... ; unset means the embedded PGlite database under dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  adminPort: number;
  devicePort: number;
  host: string;
  /** Base URL clients reach the admin API at; signed URLs are built on it. */
  publicUrl: string;
  /** Fixes the first admin API key's value so scripts know it in advance. */
  bootstrapApiKey: string | null;
  /** Encrypts secrets at rest (webhook secrets, tunnel keys). Generated into dataDir when unset. */
  secretKey: string | null;
  logLevel: string;
  /** Port of the documentation site; it is served only when siteDir holds a build. */
  sitePort: number;
  /** The built documentation site (site/build); null serves no site. */
  siteDir: string | null;
  /** Largest JSON body the admin API reads, in bytes (custom_metadata alone may be 1,000,000). */
  bodyLimit: number;
  /** The device API's own TLS identity; unset means one generated at first start under dataDir. */
  deviceTls: DeviceTlsConfig;
  /** New TLS connections per second the device API accepts; excess ones are closed before any TLS work. */
  deviceHandshakeRate: number;
  /** Connections allowed above the rate in one burst (a fleet reconnecting after a network blip). */
  deviceHandshakeBurst: number;
  /**
   * A valid certificate from a registered CA whose CN names an existing device, but which is not
   * registered for it, is added to that device (true) or refused with multi_cert_jitr_disabled.
   */
  multiCertJitr: boolean;
}

export interface DeviceTlsConfig {
  /** PEM server certificate (may hold the chain after it) and its key. Both or neither. */
  certPath: string | null;
  keyPath: string | null;
  /** PEM of what devices pin (the server certificate's CA); defaults to the certificate file. */
  caPath: string | null;
  /** Names put in a generated server certificate besides localhost and 127.0.0.1. */
  hostnames: string[];
}

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

function port(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new ConfigError(`${name} must be a port number, got ${raw}`);
  return value;
}

function positiveInteger(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`${name} must be a positive integer, got ${raw}`);
  return value;
}

function flag(env: Env, name: string): boolean {
  return ['1', 'true', 'yes', 'on'].includes((env[name] ?? '').trim().toLowerCase());
}

function text(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? null : raw.trim();
}

export function loadConfig(env: Env = process.env): Config {
  const adminPort = port(env, 'CANOPY_ADMIN_PORT', 4000);
  const host = text(env, 'CANOPY_HOST') ?? '127.0.0.1';
  const secretKey = text(env, 'CANOPY_SECRET_KEY');
  if (secretKey !== null && !/^[0-9a-fA-F]{64}$/.test(secretKey)) {
    throw new ConfigError('CANOPY_SECRET_KEY must be 64 hex characters (32 bytes)');
  }
  return {
    databaseUrl: text(env, 'DATABASE_URL'),
    dataDir: path.resolve(text(env, 'CANOPY_DATA_DIR') ?? './data'),
    adminPort,
    devicePort: port(env, 'CANOPY_DEVICE_PORT', 4001),
    host,
    publicUrl: (text(env, 'CANOPY_PUBLIC_URL') ?? `http://${host}:${adminPort}`).replace(/\/+$/, ''),
    bootstrapApiKey: text(env, 'CANOPY_BOOTSTRAP_API_KEY'),
    secretKey,
    logLevel: text(env, 'CANOPY_LOG_LEVEL') ?? 'info',
    sitePort: port(env, 'CANOPY_SITE_PORT', 3000),
    siteDir: path.resolve(text(env, 'CANOPY_SITE_DIR') ?? './site/build'),
    bodyLimit: 2 * 1024 * 1024,
    deviceTls: deviceTlsConfig(env),
    deviceHandshakeRate: positiveInteger(env, 'CANOPY_DEVICE_HANDSHAKE_RATE', 2000),
    deviceHandshakeBurst: positiveInteger(env, 'CANOPY_DEVICE_HANDSHAKE_BURST', 4000),
    multiCertJitr: flag(env, 'CANOPY_MULTI_CERT_JITR'),
  };
}

function deviceTlsConfig(env: Env): DeviceTlsConfig {
  const certPath = text(env, 'CANOPY_DEVICE_TLS_CERT');
  const keyPath = text(env, 'CANOPY_DEVICE_TLS_KEY');
  if ((certPath === null) !== (keyPath === null)) throw new ConfigError('CANOPY_DEVICE_TLS_CERT and CANOPY_DEVICE_TLS_KEY must be set together');
  return {
    certPath: certPath && path.resolve(certPath),
    keyPath: keyPath && path.resolve(keyPath),
    caPath: text(env, 'CANOPY_DEVICE_TLS_CA') && path.resolve(text(env, 'CANOPY_DEVICE_TLS_CA')!),
    hostnames: (text(env, 'CANOPY_DEVICE_HOSTNAMES') ?? '').split(',').map((name) => name.trim()).filter(Boolean),
  };
}
