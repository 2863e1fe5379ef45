/**
 * Download URLs for signable or signed binaries, valid 24 hours (config.downloadUrlTtlSeconds):
 * the bucket's presigned GET with S3, else the server's own signed /blobs URL.
 */
import type { Platform } from '../platform';
import { blobDownloadPath } from '../storage/download-routes';
import { assembledKey } from './blob-keys';
import { conflict } from '../http/errors';
import type { BinaryRow } from './wire';

/** Only these states have their assembled bytes in the store. */
export const DOWNLOADABLE_STATES = new Set(['signable', 'signed']);

export async function downloadUrlFor(platform: Platform, binary: Pick<BinaryRow, 'id' | 'revision'>): Promise<string> {
  const key = assembledKey(binary.id, binary.revision);
  const ttl = platform.config.downloadUrlTtlSeconds;
  return (await platform.blobs.presignDownload(key, ttl)) ?? platform.urls.sign('download', blobDownloadPath(key), ttl);
}

export async function binaryDownloadUrl(platform: Platform, binary: BinaryRow): Promise<string> {
  if (!DOWNLOADABLE_STATES.has(binary.state)) throw conflict('binary_not_downloadable', { current_state: binary.state, required_state: 'signable' });
  return downloadUrlFor(platform, binary);
}
