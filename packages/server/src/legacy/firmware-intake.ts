/**
 * A firmware upload's multipart body (`firmware` file, `ttl`, and `product_prn` on the flat path),
 * streamed to a temporary file under the data dir while its SHA-256 is computed: a 1 GiB archive
 * never sits in memory. The caller owns the file and removes it (`discard`) whatever happens.
 * A body cut off mid-way, a second file or a file past MAX_FIRMWARE_BYTES throws a 4xx and leaves
 * no file behind.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type {} from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { ApiError, invalidField } from '../http/errors';
import { removeStaleTempFiles, tempFileName, type TempFileKind } from '../storage/stale-temp-files';

/** Largest archive accepted (fwup images of whole root filesystems run to a few GiB). */
export const MAX_FIRMWARE_BYTES = 8 * 1024 ** 3;
const MAX_FIELD_BYTES = 4096;

export interface FirmwareIntake {
  file: { path: string; size: number; sha256: string } | null;
  fields: Record<string, string>;
  discard(): Promise<void>;
}

function cutOff(): ApiError {
  return new ApiError(400, [{ code: 'malformed_body', context: { reason: 'incomplete_multipart_body' } }]);
}

/** Upload temp files in the data dir's `tmp`: named after their process (storage/stale-temp-files.ts). */
const UPLOAD_FILE: TempFileKind = { prefix: 'firmware-', suffix: '.upload' };

/** Removes temp files of uploads that died with their process (called at start). */
export async function removeStaleUploads(tmpDir: string, now = Date.now()): Promise<void> {
  removeStaleTempFiles(tmpDir, UPLOAD_FILE, now);
}

export async function receiveFirmware(request: FastifyRequest, tmpDir: string): Promise<FirmwareIntake> {
  await fs.promises.mkdir(tmpDir, { recursive: true });
  const written: string[] = [];
  const intake: FirmwareIntake = {
    file: null,
    fields: {},
    discard: async () => {
      await Promise.all(written.map((file) => fs.promises.rm(file, { force: true })));
    },
  };
  try {
    const parts = request.parts({ limits: { files: 1, fileSize: MAX_FIRMWARE_BYTES, fields: 16, fieldSize: MAX_FIELD_BYTES, parts: 20 } });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') intake.fields[part.fieldname] = part.value;
        continue;
      }
      if (part.fieldname !== 'firmware' || intake.file) {
        part.file.resume();
        throw invalidField(part.fieldname, 'unexpected_file');
      }
      const file = path.join(tmpDir, tempFileName(UPLOAD_FILE));
      written.push(file);
      const hash = createHash('sha256');
      let size = 0;
      const measure = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      await pipeline(part.file, measure, fs.createWriteStream(file, { mode: 0o600 }));
      if (part.file.truncated) throw new ApiError(413, [{ code: 'body_too_large', context: { field: 'firmware', max: MAX_FIRMWARE_BYTES } }]);
      intake.file = { path: file, size, sha256: hash.digest('hex') };
    }
    return intake;
  } catch (error) {
    await intake.discard();
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new ApiError(413, [{ code: 'body_too_large', context: { field: 'firmware', max: MAX_FIRMWARE_BYTES } }]);
    if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') throw new ApiError(415, [{ code: 'unsupported_media_type', context: { expected: 'multipart/form-data' } }]);
    // @fastify/multipart refuses a part named `__proto__` (or another prototype key) before we
    // see its name: it is a field name no form of ours has.
    if (code === 'FST_PROTO_VIOLATION') throw invalidField('__proto__', 'prototype_key_not_allowed');
    if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw new ApiError(413, [{ code: 'body_too_large', context: { reason: code.toLowerCase() } }]);
    // Busboy's "Unexpected end of form", an aborted socket, a malformed boundary: the body never
    // arrived whole.
    throw cutOff();
  }
}
