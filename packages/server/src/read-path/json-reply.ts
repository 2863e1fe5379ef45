/**
 * Answers built from wire JSON text the database wrote (owned-json.ts), sent as they are. The
 * bytes and headers are what the response serialiser would send for the same objects:
 * `{"<key>":{...}}` and `{"<plural>":[...],"next_page":...}`, compact, in the schema's key order.
 */
import type { FastifyReply } from 'fastify';
import type { JsonPage } from './owned-json';

const JSON_TYPE = 'application/json; charset=utf-8';

/** `{"<key>": item}` (http/schemas.ts's `single`). */
export function sendJsonItem(reply: FastifyReply, key: string, itemJson: string): FastifyReply {
  return reply.header('content-type', JSON_TYPE).send(`{${JSON.stringify(key)}:${itemJson}}`);
}

/**
 * The bytes of the pages being sent: requests of the same page share the page (in one turn, and
 * from turn to turn while it reads the same: owned-json.ts), and so its body; it goes with the page.
 */
const bodies = new WeakMap<JsonPage, { key: string; body: Buffer }>();

/** `{"<plural>": [items], "next_page": cursor | null}` (http/schemas.ts's `list`). */
export function sendJsonPage(reply: FastifyReply, key: string, page: JsonPage): FastifyReply {
  let sent = bodies.get(page);
  if (sent === undefined || sent.key !== key) bodies.set(page, (sent = { key, body: pageBody(key, page) }));
  return reply.header('content-type', JSON_TYPE).send(sent.body);
}

/**
 * The page's bytes, each item encoded straight into one Buffer. A page is ~60 KB: joining the
 * items into one string first, then wrapping and encoding it, made two more copies of it per
 * request (garbage the collector then had to sweep), and a string payload was measured for
 * content-length and encoded again.
 */
function pageBody(key: string, page: JsonPage): Buffer {
  const head = `{${JSON.stringify(key)}:[`;
  const tail = `],"next_page":${JSON.stringify(page.nextPage)}}`;
  const { items } = page;
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, items.length - 1);
  for (const item of items) size += Buffer.byteLength(item);
  const body = Buffer.allocUnsafe(size);
  let at = body.write(head, 0);
  for (let i = 0; i < items.length; i++) {
    if (i > 0) at = body.writeUInt8(0x2c, at); // ','
    at += body.write(items[i], at);
  }
  at += body.write(tail, at);
  if (at !== size) throw new Error(`page body is ${at} bytes, expected ${size}`);
  return body;
}
