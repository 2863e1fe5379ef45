/**
 * Every setting of the server, read from the environment in one place and typed.
 * Nothing else reads process.env, so tests build a Config by hand and production reads it once.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { parsePortRange, type PortRange } from './tunnels/port-ranges';

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
  /** CANOPY_ANALYTICS_ENDPOINT: where the site's page-view beacons go (set at build time too); its origin is allowed by the site's CSP. */
  siteAnalyticsEndpoint: string | null;
  /** Where the docs site's "Web console" link leads; null: the admin port on the site's host name. */
  webConsoleUrl: string | null;
  /** The web console's build (packages/console/dist), served at /console/ on the admin port when present. */
  consoleDir: string | null;
  /** Largest JSON body the admin API reads, in bytes (custom_metadata alone may be 1,000,000). */
  bodyLimit: number;
  /** The device API's own TLS identity; unset means one generated at first start under dataDir. */
  deviceTls: DeviceTlsConfig;
  /** New TLS connections per second the device API accepts; excess ones are closed before any TLS work. */
  deviceHandshakeRate: number;
  /** CANOPY_CAP_RETRY_SECONDS: the retry hint (before its +-25% spread) of a device beyond a release's concurrency cap. */
  capRetrySeconds: number;
  /**
   * CANOPY_TEST_CLOCK_OFFSET_FILE, for tests of several server processes only: a file holding
   * seconds added to the update check's clock (maintenance windows, rests, schedules); see
   * offset-clock.ts. Null: the wall clock.
   */
  testClockOffsetFile: string | null;
  /** Connections allowed above the rate in one burst (a fleet reconnecting after a network blip). */
  deviceHandshakeBurst: number;
  /** TLS handshakes in flight (accepted, not yet finished) at most; new connections beyond are closed before any TLS work. */
  deviceHandshakeConcurrency: number;
  /** While the event loop runs more than this many ms late, new device connections are closed before any TLS work (but a few). */
  deviceHandshakeMaxLoopDelayMs: number;
  /** Device TLS handshakes in flight from one source address (an IPv4 address, an IPv6 /64) at most. */
  deviceHandshakePerAddress: number;
  /** Device connections not yet through their ClientHello, per source address and in all; beyond, the oldest is closed. */
  deviceHelloWaitPerAddress: number;
  deviceHelloWaitTotal: number;
  /** Seconds from a device connection's accept by which its ClientHello must be in, and its TLS handshake over. */
  deviceHelloTimeoutSeconds: number;
  deviceHandshakeTimeoutSeconds: number;
  /**
   * A valid certificate from a registered CA whose CN names an existing device, but which is not
   * registered for it, is added to that device (true) or refused with multi_cert_jitr_disabled.
   */
  multiCertJitr: boolean;
  /** CANOPY_WEBHOOK_ALLOW_PRIVATE=1: let webhooks reach private/loopback addresses (tests, labs). Metadata addresses stay refused. */
  webhookAllowPrivate: boolean;
  /** Extra CA certificates (PEM files) webhook receivers may chain to: CANOPY_WEBHOOK_CA_FILE and NODE_EXTRA_CA_CERTS. */
  webhookCaFiles: string[];
  /** A delivery attempt (and the verification test fire) fails after this long; the contract says 10 s. */
  webhookTimeoutMs: number;
  /** First retry delay; each further one doubles (jittered) up to webhookRetryMaxDelayMs. */
  webhookRetryBaseMs: number;
  webhookRetryMaxDelayMs: number;
  /** A delivery still failing this long after its event is given up (`webhook.request_failed`); 3 days. */
  webhookRetryWindowSeconds: number;
  /** How long a claimed delivery belongs to one process; a crashed process's claims are retried after it. Must exceed the timeout. */
  webhookLeaseSeconds: number;
  /** Deliveries in flight at once per server process, and how often an idle worker looks for due ones. */
  webhookConcurrency: number;
  webhookPollMs: number;
  /** The address devices reach the tunnel server at (each tunnel's WireGuard endpoint). */
  tunnelServerIpAddress: string;
  /** UDP ports the tunnel allocator hands out, one per open tunnel, e.g. `51820-52819`. */
  tunnelPortRanges: PortRange[];
  /** Run open tunnels' WireGuard interfaces and TCP proxies (tunnels/data-plane/); needs root. Default on. */
  tunnelDataPlane: boolean;
  /** TUF metadata the server signs with its online keys: timestamp lifetime (short: a frozen device notices) and snapshot lifetime, in seconds. */
  tufTimestampExpirySeconds: number;
  tufSnapshotExpirySeconds: number;
  /** Where binaries' bytes live: files under dataDir/blobs (default) or an S3-compatible bucket. */
  blobStore: BlobStoreConfig;
  /** Lifetime of signed part-upload and download URLs, in seconds (download URLs: 24 hours). */
  uploadUrlTtlSeconds: number;
  downloadUrlTtlSeconds: number;
  /** Most entries a legacy firmware archive (a zip) may hold; more is refused before any is read. */
  firmwareMaxEntries: number;
  /** A console or CLI session (POST /users/auth) ends after this long unused; each use pushes it on. */
  sessionIdleTimeoutSeconds: number;
  /** ...and this long after its log-in whatever its use. */
  sessionMaxLifetimeSeconds: number;
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

export type BlobStoreConfig =
  | { kind: 'filesystem'; root: string }
  | {
      kind: 's3';
      bucket: string;
      region: string;
      /** Unset means AWS itself; set it for MinIO, Ceph, s3rver... */
      endpoint: string | null;
      accessKeyId: string | null;
      secretAccessKey: string | null;
      /** `https://host/bucket/key` instead of `https://bucket.host/key`; most non-AWS servers need it. */
      forcePathStyle: boolean;
    };

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

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${raw}`);
  return value;
}

function text(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? null : raw.trim();
}

function portRanges(env: Env, name: string, fallback: string): PortRange[] {
  const raw = text(env, name) ?? fallback;
  const ranges = raw.split(',').map(parsePortRange);
  if (ranges.some((r) => r === null)) throw new ConfigError(`${name} must be ports or ranges like 51820-52819,53000, got ${raw}`);
  return ranges as PortRange[];
}

function ipAddress(env: Env, name: string, fallback: string): string {
  const value = text(env, name) ?? fallback;
  if (isIP(value) === 0) throw new ConfigError(`${name} must be an IP address, got ${value}`);
  return value;
}

function blobStoreConfig(env: Env, dataDir: string): BlobStoreConfig {
  const kind = text(env, 'CANOPY_BLOB_STORE') ?? (text(env, 'CANOPY_S3_BUCKET') ? 's3' : 'filesystem');
  if (kind === 'filesystem') return { kind, root: path.join(dataDir, 'blobs') };
  if (kind !== 's3') throw new ConfigError(`CANOPY_BLOB_STORE must be filesystem or s3, got ${kind}`);
  const bucket = text(env, 'CANOPY_S3_BUCKET');
  if (!bucket) throw new ConfigError('CANOPY_S3_BUCKET is required when CANOPY_BLOB_STORE=s3');
  return {
    kind,
    bucket,
    region: text(env, 'CANOPY_S3_REGION') ?? 'us-east-1',
    endpoint: text(env, 'CANOPY_S3_ENDPOINT'),
    accessKeyId: text(env, 'CANOPY_S3_ACCESS_KEY_ID'),
    secretAccessKey: text(env, 'CANOPY_S3_SECRET_ACCESS_KEY'),
    forcePathStyle: /^(1|true|yes)$/i.test(text(env, 'CANOPY_S3_FORCE_PATH_STYLE') ?? ''),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const adminPort = port(env, 'CANOPY_ADMIN_PORT', 4000);
  const host = text(env, 'CANOPY_HOST') ?? '127.0.0.1';
  const secretKey = text(env, 'CANOPY_SECRET_KEY');
  if (secretKey !== null && !/^[0-9a-fA-F]{64}$/.test(secretKey)) {
    throw new ConfigError('CANOPY_SECRET_KEY must be 64 hex characters (32 bytes)');
  }
  const dataDir = path.resolve(text(env, 'CANOPY_DATA_DIR') ?? './data');
  const publicUrl = (text(env, 'CANOPY_PUBLIC_URL') ?? `http://${host}:${adminPort}`).replace(/\/+$/, '');
  return {
    databaseUrl: text(env, 'DATABASE_URL'),
    dataDir,
    adminPort,
    devicePort: port(env, 'CANOPY_DEVICE_PORT', 4001),
    host,
    publicUrl,
    bootstrapApiKey: text(env, 'CANOPY_BOOTSTRAP_API_KEY'),
    secretKey,
    logLevel: text(env, 'CANOPY_LOG_LEVEL') ?? 'info',
    sitePort: port(env, 'CANOPY_SITE_PORT', 3000),
    siteDir: path.resolve(text(env, 'CANOPY_SITE_DIR') ?? './site/build'),
    siteAnalyticsEndpoint: text(env, 'CANOPY_ANALYTICS_ENDPOINT'),
    webConsoleUrl: text(env, 'CANOPY_WEB_CONSOLE_URL') ?? (text(env, 'CANOPY_PUBLIC_URL') ? `${publicUrl}/console/` : null),
    consoleDir: path.resolve(text(env, 'CANOPY_CONSOLE_DIR') ?? './packages/console/dist'),
    bodyLimit: 2 * 1024 * 1024,
    deviceTls: deviceTlsConfig(env),
    deviceHandshakeRate: positiveInteger(env, 'CANOPY_DEVICE_HANDSHAKE_RATE', 2000),
    capRetrySeconds: integer(env, 'CANOPY_CAP_RETRY_SECONDS', 60, 1, 3600),
    testClockOffsetFile: text(env, 'CANOPY_TEST_CLOCK_OFFSET_FILE'),
    deviceHandshakeBurst: positiveInteger(env, 'CANOPY_DEVICE_HANDSHAKE_BURST', 4000),
    deviceHandshakeConcurrency: positiveInteger(env, 'CANOPY_DEVICE_HANDSHAKE_CONCURRENCY', 64),
    deviceHandshakeMaxLoopDelayMs: integer(env, 'CANOPY_DEVICE_HANDSHAKE_MAX_LOOP_DELAY_MS', 50, 10, 60_000),
    deviceHandshakePerAddress: positiveInteger(env, 'CANOPY_DEVICE_HANDSHAKE_PER_ADDRESS', 16),
    deviceHelloWaitPerAddress: positiveInteger(env, 'CANOPY_DEVICE_HANDSHAKE_HELLO_WAIT_PER_ADDRESS', 32),
    deviceHelloWaitTotal: positiveInteger(env, 'CANOPY_DEVICE_HANDSHAKE_HELLO_WAIT_TOTAL', 1024),
    ...deviceHandshakeDeadlines(env),
    multiCertJitr: flag(env, 'CANOPY_MULTI_CERT_JITR'),
    blobStore: blobStoreConfig(env, dataDir),
    uploadUrlTtlSeconds: 24 * 3600,
    downloadUrlTtlSeconds: 24 * 3600,
    firmwareMaxEntries: positiveInteger(env, 'CANOPY_FIRMWARE_MAX_ENTRIES', 10_000),
    tunnelServerIpAddress: ipAddress(env, 'CANOPY_TUNNEL_SERVER_IP', '127.0.0.1'),
    tunnelPortRanges: portRanges(env, 'CANOPY_TUNNEL_PORTS', '51820-52819'),
    tunnelDataPlane: !['0', 'false', 'no', 'off'].includes((env.CANOPY_TUNNEL_DATA_PLANE ?? '').trim().toLowerCase()),
    ...webhookSettings(env),
    ...sessionSettings(env),
    tufTimestampExpirySeconds: integer(env, 'CANOPY_TUF_TIMESTAMP_EXPIRY_SECONDS', 24 * 3600, 2, 30 * DAY_SECONDS),
    tufSnapshotExpirySeconds: integer(env, 'CANOPY_TUF_SNAPSHOT_EXPIRY_SECONDS', 7 * DAY_SECONDS, 2, 365 * DAY_SECONDS),
  };
}

function sessionSettings(env: Env) {
  const idle = integer(env, 'CANOPY_SESSION_IDLE_TIMEOUT_SECONDS', 12 * 3600, 60, 30 * DAY_SECONDS);
  const max = integer(env, 'CANOPY_SESSION_MAX_LIFETIME_SECONDS', 7 * DAY_SECONDS, 60, 90 * DAY_SECONDS);
  if (idle > max) throw new ConfigError('CANOPY_SESSION_IDLE_TIMEOUT_SECONDS must not exceed CANOPY_SESSION_MAX_LIFETIME_SECONDS');
  return { sessionIdleTimeoutSeconds: idle, sessionMaxLifetimeSeconds: max };
}

const DAY_SECONDS = 24 * 3600;

function deviceHandshakeDeadlines(env: Env) {
  const helloSeconds = integer(env, 'CANOPY_DEVICE_HANDSHAKE_HELLO_TIMEOUT_SECONDS', 5, 1, 60);
  const handshakeSeconds = integer(env, 'CANOPY_DEVICE_HANDSHAKE_TIMEOUT_SECONDS', 10, 1, 120);
  // Both count from the accept: the handshake's deadline cannot come before its ClientHello's.
  if (handshakeSeconds < helloSeconds) throw new ConfigError('CANOPY_DEVICE_HANDSHAKE_TIMEOUT_SECONDS must be at least CANOPY_DEVICE_HANDSHAKE_HELLO_TIMEOUT_SECONDS');
  return { deviceHelloTimeoutSeconds: helloSeconds, deviceHandshakeTimeoutSeconds: handshakeSeconds };
}

function webhookSettings(env: Env) {
  const timeoutMs = integer(env, 'CANOPY_WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000);
  const leaseSeconds = integer(env, 'CANOPY_WEBHOOK_LEASE_SECONDS', 60, 1, 3600);
  if (leaseSeconds * 1000 <= timeoutMs) throw new ConfigError('CANOPY_WEBHOOK_LEASE_SECONDS must be longer than CANOPY_WEBHOOK_TIMEOUT_MS');
  return {
    webhookAllowPrivate: env.CANOPY_WEBHOOK_ALLOW_PRIVATE === '1' || env.CANOPY_WEBHOOK_ALLOW_PRIVATE === 'true',
    webhookCaFiles: [text(env, 'CANOPY_WEBHOOK_CA_FILE'), text(env, 'NODE_EXTRA_CA_CERTS')].filter((f): f is string => f !== null),
    webhookTimeoutMs: timeoutMs,
    webhookRetryBaseMs: integer(env, 'CANOPY_WEBHOOK_RETRY_BASE_MS', 10_000, 10, 3_600_000),
    webhookRetryMaxDelayMs: integer(env, 'CANOPY_WEBHOOK_RETRY_MAX_DELAY_MS', 6 * 3600 * 1000, 10, DAY_SECONDS * 1000),
    webhookRetryWindowSeconds: integer(env, 'CANOPY_WEBHOOK_RETRY_WINDOW_SECONDS', 3 * DAY_SECONDS, 1, 30 * DAY_SECONDS),
    webhookLeaseSeconds: leaseSeconds,
    webhookConcurrency: integer(env, 'CANOPY_WEBHOOK_CONCURRENCY', 32, 1, 1000),
    webhookPollMs: integer(env, 'CANOPY_WEBHOOK_POLL_MS', 200, 10, 60_000),
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
