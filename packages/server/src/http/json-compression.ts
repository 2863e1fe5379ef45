/**
 * Compresses the admin API's JSON answers for clients that ask for it (Accept-Encoding). A page
 * of 100 devices is about 60 KB of JSON and 8 KB compressed: on a phone's link that is most of
 * what the web console's fleet view waits for (bench/console.ts).
 * Only JSON above MIN_BYTES: a smaller answer fits in a packet or two, so compressing it costs CPU
 * and saves no time. Files are compressed once per build by their own senders (site/static-site.ts
 * encodedFiles), binaries already are, and the event stream hijacks its reply (no onSend).
 * Brotli when the client takes it, at quality 4 (about gzip's size at a fraction of brotli's
 * default cost, which is tuned for files compressed once), else gzip at its default level.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const MIN_BYTES = 1024;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };

export type Encoding = 'br' | 'gzip';

/**
 * The encoding to answer with for an Accept-Encoding header, or null for none: the first of
 * `offered` the header accepts. Honours q-values (`gzip;q=0` refuses gzip) and `*`; by default
 * prefers brotli to gzip when both are acceptable.
 */
export function negotiateEncoding(header: string | undefined, offered: readonly Encoding[] = ['br', 'gzip']): Encoding | null {
  if (!header) return null;
  const weights = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...parameters] = part.trim().split(';');
    const q = parameters.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    weights.set(name.trim(), q ? Number(q[1]) : 1);
  }
  const weight = (encoding: Encoding) => weights.get(encoding) ?? weights.get('*') ?? 0;
  return offered.find((encoding) => weight(encoding) > 0) ?? null;
}

const isJson = (contentType: unknown) => typeof contentType === 'string' && /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType);

async function compressJson(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  if (reply.hasHeader('content-encoding') || !isJson(reply.getHeader('content-type'))) return payload;
  if (Buffer.byteLength(payload) < MIN_BYTES) return payload;
  // From here the answer depends on the request's Accept-Encoding, whichever way it goes.
  reply.header('vary', varyWithAcceptEncoding(reply.getHeader('vary')));
  const encoding = negotiateEncoding(request.headers['accept-encoding']);
  if (!encoding) return payload;
  const body = encoding === 'br' ? await brotliAsync(payload, BROTLI_OPTIONS) : await gzipAsync(payload);
  reply.header('content-encoding', encoding);
  // A length a handler set was the uncompressed one; Fastify sets the right one from the Buffer.
  reply.removeHeader('content-length');
  return body;
}

function varyWithAcceptEncoding(vary: unknown): string {
  const current = typeof vary === 'string' ? vary : Array.isArray(vary) ? vary.join(', ') : '';
  if (/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(current)) return current;
  return current ? `${current}, accept-encoding` : 'accept-encoding';
}

export function installJsonCompression(app: FastifyInstance): void {
  app.addHook('onSend', compressJson);
}
