/** The BlobStore the configuration asks for. */
import type { BlobStoreConfig } from '../config';
import type { BlobStore } from './blob-store';
import { createFilesystemBlobStore } from './filesystem';
import { createS3BlobStore } from './s3';

export function createBlobStore(config: BlobStoreConfig): BlobStore {
  return config.kind === 's3' ? createS3BlobStore(config) : createFilesystemBlobStore(config.root);
}
