/**
 * Starting and stopping the whole platform: config -> database -> migrations -> first-start
 * bootstrap -> admin API (+ device API and workers as they are added). main.ts and the test
 * harness both start it through here, so tests run exactly what production runs.
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import pino from 'pino';
import { bootstrapIfEmpty, type BootstrapResult } from './accounts/service';
import { buildAdminApi } from './admin-api';
import type { Config } from './config';
import { createSecretBox, resolveSecretKey } from './crypto/secret-box';
import { buildDeviceApi, type DeviceApi } from './device-api/app';
import { loadDeviceTlsIdentity } from './device-api/tls-identity';
import { makePrivate } from './data-dir/private-files';
import { connect, pgliteDirFor } from './db/connection';
import { listenForKeyRevocations } from './accounts/key-revocations';
import { afterRequestCommit } from './db/request-scope';
import { runMigrations } from './db/migrate';
import { offsetClock } from './offset-clock';
import type { AdminApp } from './http/app-types';
import type { Platform } from './platform';
import { createBlobStore } from './storage/create';
import { createSignedUrls, deriveUrlKey } from './storage/signed-urls';
import { createSiteServer } from './site/static-site';
import { BACKGROUND_SERVICES, JOB_HANDLERS } from './workers/handlers';
import { createJobRunner, type JobRunner } from './workers/runner';

export interface RunningServer {
  platform: Platform;
  admin: AdminApp;
  adminUrl: string;
  device: DeviceApi;
  /** `https://host:port` of the device API (mutual TLS). */
  deviceUrl: string;
  /** PEM of the CA devices pin to trust the device API's server certificate. */
  deviceServerCaPem: string;
  bootstrap: BootstrapResult | null;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Keep PGlite in memory instead of under dataDir (tests). */
  inMemoryDatabase?: boolean;
  /** The in-memory database's starting dump (db/connection.ts); tests pass a migrated one. */
  pgliteSeed?: Blob;
  /** Write the first admin key to dataDir/initial-api-key and print it (the real server does). */
  announceBootstrap?: boolean;
  /** Run the background workers (default true); tests of a single worker may turn them off. */
  workers?: boolean;
}

function writeInitialKey(dataDir: string, result: BootstrapResult): void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'initial-api-key');
  fs.writeFileSync(file, `${result.apiKey}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

/** No one but the server's user may read its files (data-dir/private-files.ts): repaired at each start. */
function keepDataPrivate(config: Config, log: pino.Logger): void {
  const roots = [config.dataDir];
  if (config.blobStore.kind === 'filesystem' && !config.blobStore.root.startsWith(config.dataDir + path.sep)) roots.push(config.blobStore.root);
  for (const root of roots) {
    const { changed, failed } = makePrivate(root);
    if (changed > 0) log.info({ root, changed }, 'took group and other access away from data files');
    if (failed.length > 0) log.warn({ root, failed: failed.slice(0, 10) }, 'could not make data files private');
  }
}

/** The documentation site, when a build is there to serve. */
async function startSite(config: Config, log: pino.Logger): Promise<http.Server | null> {
  if (!config.siteDir || !fs.existsSync(path.join(config.siteDir, 'index.html'))) return null;
  const site = createSiteServer(config.siteDir, {
    analyticsEndpoint: config.siteAnalyticsEndpoint,
    webConsole: { url: config.webConsoleUrl, adminPort: config.adminPort },
  });
  await new Promise<void>((resolve, reject) => site.once('error', reject).listen(config.sitePort, config.host, resolve));
  const { port } = site.address() as { port: number };
  log.info({ siteUrl: `http://${config.host}:${port}` }, 'documentation site listening');
  return site;
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const log = pino({ level: config.logLevel === 'silent' ? 'silent' : config.logLevel });
  const handle = await connect({
    databaseUrl: config.databaseUrl,
    pgliteDir: options.inMemoryDatabase ? null : pgliteDirFor(config.dataDir),
    pgliteSeed: options.pgliteSeed,
  });
  try {
    await runMigrations(handle);
    // A job enqueued by an admin request is visible once its transaction commits (db/request-scope.ts).
    const jobs = { wake: () => afterRequestCommit(() => runner?.wake()) };
    const secretKey = resolveSecretKey(config.secretKey, config.dataDir);
    // With an ephemeral port (tests, benchmarks) the public URL is only known once listening.
    let publicUrl = config.publicUrl;
    const platform: Platform = {
      config,
      db: handle.db,
      driver: handle.driver,
      secrets: createSecretBox(secretKey),
      log,
      jobs,
      blobs: await createBlobStore(config.blobStore),
      urls: createSignedUrls(deriveUrlKey(secretKey), () => publicUrl),
      ...(config.testClockOffsetFile ? { now: offsetClock(config.testClockOffsetFile) } : {}),
    };
    // Before any request: a key revoked by another process must never be answered from the cache.
    const revocations = config.databaseUrl ? await listenForKeyRevocations(config.databaseUrl, handle.db, log) : null;
    const runner: JobRunner | null = options.workers === false ? null : createJobRunner(platform, JOB_HANDLERS);
    const services = options.workers === false ? [] : BACKGROUND_SERVICES.map((make) => make(platform));
    const bootstrap = await bootstrapIfEmpty(handle.db, config.bootstrapApiKey);
    if (bootstrap && options.announceBootstrap) {
      writeInitialKey(config.dataDir, bootstrap);
      // Printed once, on purpose: this is the only time the key and password are shown.
      process.stdout.write(
        `\nCanopy created organization "${bootstrap.organization.name}".\n` +
          `  admin API key:  ${bootstrap.apiKey}   (also in ${path.join(config.dataDir, 'initial-api-key')})\n` +
          `  admin user:     ${bootstrap.username} / ${bootstrap.password}\n\n`,
      );
    }
    const identity = await loadDeviceTlsIdentity(config);
    // After the last file setup writes; PGlite's first start writes its files 0666.
    keepDataPrivate(config, log);
    // The device API listens first: once the admin API's /healthz answers, devices can connect too.
    const device = await buildDeviceApi(platform, identity, `https://${config.host}:${config.devicePort}`);
    const deviceUrl = await device.app.listen({ port: config.devicePort, host: config.host });
    log.info({ deviceUrl, identity: identity.source }, 'canopy device API listening');
    const admin = await buildAdminApi(platform);
    let adminUrl: string;
    try {
      adminUrl = await admin.listen({ port: config.adminPort, host: config.host });
    } catch (error) {
      await device.app.close();
      throw error;
    }
    if (config.adminPort === 0) publicUrl = adminUrl;
    log.info({ adminUrl, database: handle.driver }, 'canopy admin API listening');
    const site = await startSite(config, log);
    runner?.start();
    for (const service of services) service.start();
    let closed = false;
    return {
      platform,
      admin,
      adminUrl,
      device,
      deviceUrl,
      deviceServerCaPem: identity.caPem,
      bootstrap,
      async close() {
        if (closed) return;
        closed = true;
        await Promise.all([admin.close(), device.app.close()]);
        if (site) await new Promise((resolve) => site.close(resolve));
        await runner?.stop();
        await Promise.all(services.map((s) => s.stop()));
        await revocations?.close();
        await handle.close();
      },
    };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}
