/** The BlobStore the configuration asks for. */
import type { BlobStoreConfig } from '../config';
import type { BlobStore } from './blob-store';
import { createFilesystemBlobStore } from './filesystem';

/** The AWS SDK is loaded only for an S3 store: it costs tens of megabytes of memory otherwise. */
export async function createBlobStore(config: BlobStoreConfig): Promise<BlobStore> {
  if (config.kind !== 's3') return createFilesystemBlobStore(config.root);
  const { createS3BlobStore } = await import('./s3');
  return createS3BlobStore(config);
}
