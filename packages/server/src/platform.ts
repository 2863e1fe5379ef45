/**
 * What every context's routes and services are handed: settings, the database and shared
 * services. Built once in main.ts (or by the test harness) and never a module-level global, so
 * two platforms can run in one process.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config';
import type { SecretBox } from './crypto/secret-box';
import type { Database } from './db/connection';
import type { BlobStore } from './storage/blob-store';
import type { SignedUrls } from './storage/signed-urls';

export interface Platform {
  config: Config;
  db: Database;
  driver: 'pglite' | 'postgres';
  secrets: SecretBox;
  log: FastifyBaseLogger;
  /** Durable jobs: call wake() after enqueueing so this process picks the job up at once. */
  jobs: { wake(): void };
  /** Binaries' bytes: filesystem or S3 (config.blobStore). */
  blobs: BlobStore;
  /** Signs and checks the URLs the server serves without an API key (uploads, downloads). */
  urls: SignedUrls;
  /** The update check's clock (maintenance windows, schedules); tests set it, absent = the wall clock. */
  now?: () => Date;
}
