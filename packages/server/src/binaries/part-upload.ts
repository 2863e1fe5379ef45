/**
 * Receiving a part's bytes at the server's own signed upload URL (filesystem store). Every check
 * comes before any write, and a refused write changes nothing:
 *   1. the part must exist and its binary be uploadable, else 404 / 409 before a byte is read
 *      (an old URL replayed after signing costs nothing and touches nothing);
 *   2. the body streams through a Meter (count + SHA-256, reading stops one byte past the
 *      declared size) into a staged blob, never under the part's key;
 *   3. the verdict is settled with the binary's row locked (commitPartUpload): only valid bytes,
 *      and only while the binary is still uploadable, are published under the part's key. A part
 *      PUT racing a state move (hashing starts) therefore either lands before it or not at all.
 */
import type { IncomingMessage } from 'node:http';
import type { Platform } from '../platform';
import type { StagedBlob } from '../storage/blob-store';
import { partKey } from './blob-keys';
import { BodyTooLong, Meter } from './metering';
import { commitPartUpload, partForUpload } from './parts';
import type { BinaryState, PartState } from './schema';
import type { PartRow } from './wire';

export type UploadOutcome =
  | { kind: 'stored'; part: PartRow; verdict: PartState; received: number }
  | { kind: 'too_long'; part: PartRow }
  | { kind: 'gone' }
  | { kind: 'not_uploadable'; state: BinaryState };

/** `x-amz-checksum-sha256` (base64 of the raw digest) when the client sent one. */
function clientChecksum(request: IncomingMessage): Buffer | null {
  const header = request.headers['x-amz-checksum-sha256'];
  return typeof header === 'string' ? Buffer.from(header, 'base64') : null;
}

function verdictOf(part: PartRow, meter: Meter, checksum: Buffer | null): PartState {
  if (meter.bytes !== part.size) return 'invalid_size';
  const digest = meter.digest();
  return digest.toString('hex') !== part.hash || (checksum && !checksum.equals(digest)) ? 'invalid_hash' : 'valid';
}

export async function receivePart(platform: Platform, partId: string, body: IncomingMessage): Promise<UploadOutcome> {
  const target = await partForUpload(platform.db, partId);
  if (!target) return { kind: 'gone' };
  if (target.binaryState !== 'uploadable') return { kind: 'not_uploadable', state: target.binaryState };
  const { part } = target;
  const meter = new Meter(part.size);
  body.on('error', (error) => meter.destroy(error));
  body.on('aborted', () => meter.destroy(new Error('client aborted the upload')));
  body.pipe(meter);
  let staged: StagedBlob | null = null;
  try {
    staged = await platform.blobs.stage(partKey(part.binaryId, part.id), meter, part.size);
  } catch (error) {
    body.unpipe(meter);
    if (!(error instanceof BodyTooLong)) throw error;
  }
  try {
    const verdict = staged ? verdictOf(part, meter, clientChecksum(body)) : 'invalid_size';
    const committed = await commitPartUpload(platform.db, part.id, verdict, () => staged!.publish());
    if (committed.kind !== 'recorded') return committed;
    if (!staged) return { kind: 'too_long', part: committed.part };
    return { kind: 'stored', part: committed.part, verdict, received: meter.bytes };
  } finally {
    await staged?.discard();
  }
}
