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
  };
}
