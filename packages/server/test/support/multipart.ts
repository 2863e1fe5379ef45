/**
 * multipart/form-data bodies written byte by byte, as the legacy firmware upload takes them: text
 * fields and file parts, in the order given. Written here (not by fetch's FormData) so tests can
 * also send what no well-behaved client would: odd part headers, a missing closing boundary.
 */
import { randomBytes } from 'node:crypto';

export type FormPart =
  | { name: string; value: string }
  | { name: string; file: Buffer; filename?: string; contentType?: string };

export interface MultipartBody {
  body: Buffer;
  contentType: string;
}

export interface MultipartOptions {
  boundary?: string;
  /** Leave out the closing boundary: a body cut off after its last part. */
  unterminated?: boolean;
}

/** Quotes a header parameter value as browsers do (`"` and line breaks escaped). */
const quoted = (text: string) => `"${text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;

export function multipartBody(parts: FormPart[], options: MultipartOptions = {}): MultipartBody {
  const boundary = options.boundary ?? `----canopy-test-${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('file' in part) {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}; filename=${quoted(part.filename ?? 'firmware.fw')}\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`, 'utf8'));
      chunks.push(part.file, Buffer.from('\r\n'));
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}\r\n\r\n${part.value}\r\n`, 'utf8'));
    }
  }
  if (!options.unterminated) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
