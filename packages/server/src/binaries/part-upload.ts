/**
 * Receiving a part's bytes at the server's own signed upload URL (filesystem store). The body
 * streams through a Meter (count + SHA-256) into the store; it is never held in memory, and
 * reading stops one byte past the declared size. Only bytes that match the declared size and
 * hash make a `valid` part; anything else is deleted and the part marked invalid_size or
 * invalid_hash, so nothing half-stored can later read as valid.
 */
import type { IncomingMessage } from 'node:http';
import type { Platform } from '../platform';
import { partKey } from './blob-keys';
import { BodyTooLong, Meter } from './metering';
import { partForUpload, recordPartState } from './parts';
import type { PartState } from './schema';
import type { PartRow } from './wire';

export type UploadOutcome =
  | { kind: 'stored'; part: PartRow; state: PartState; received: number }
  | { kind: 'too_long'; part: PartRow }
  | { kind: 'gone' }
  | { kind: 'not_uploadable' };

/** `x-amz-checksum-sha256` (base64 of the raw digest) when the client sent one. */
function clientChecksum(request: IncomingMessage): Buffer | null {
  const header = request.headers['x-amz-checksum-sha256'];
  return typeof header === 'string' ? Buffer.from(header, 'base64') : null;
}

export async function receivePart(platform: Platform, partId: string, body: IncomingMessage): Promise<UploadOutcome> {
  const part = await partForUpload(platform.db, partId);
  if (!part) return { kind: 'gone' };
  const key = partKey(part.binaryId, part.id);
  const meter = new Meter(part.size);
  body.on('error', (error) => meter.destroy(error));
  body.on('aborted', () => meter.destroy(new Error('client aborted the upload')));
  body.pipe(meter);
  try {
    await platform.blobs.put(key, meter, part.size);
  } catch (error) {
    body.unpipe(meter);
    if (!(error instanceof BodyTooLong)) throw error;
    await recordPartState(platform.db, part.id, 'invalid_size');
    return { kind: 'too_long', part };
  }
  const digest = meter.digest();
  const checksum = clientChecksum(body);
  const state: PartState =
    meter.bytes !== part.size ? 'invalid_size' : digest.toString('hex') !== part.hash || (checksum && !checksum.equals(digest)) ? 'invalid_hash' : 'valid';
  const recorded = await recordPartState(platform.db, part.id, state);
  if (state !== 'valid' || !recorded) await platform.blobs.delete(key);
  if (!recorded) return (await partForUpload(platform.db, partId)) ? { kind: 'not_uploadable' } : { kind: 'gone' };
  return { kind: 'stored', part: { ...part, state }, state, received: meter.bytes };
}
