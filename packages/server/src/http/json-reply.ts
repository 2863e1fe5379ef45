/**
 * Answers built from wire JSON text the database wrote (owned-json.ts), sent as they are. The
 * bytes and headers are what the response serialiser would send for the same objects:
 * `{"<key>":{...}}` and `{"<plural>":[...],"next_page":...}`, compact, in the schema's key order.
 */
import type { FastifyReply } from 'fastify';
import type { JsonPage } from './owned-json';

const JSON_TYPE = 'application/json; charset=utf-8';

/** `{"<key>": item}` (schemas.ts's `single`). */
export function sendJsonItem(reply: FastifyReply, key: string, itemJson: string): FastifyReply {
  return reply.header('content-type', JSON_TYPE).send(`{${JSON.stringify(key)}:${itemJson}}`);
}

/** `{"<plural>": [items], "next_page": cursor | null}` (schemas.ts's `list`). */
export function sendJsonPage(reply: FastifyReply, key: string, page: JsonPage): FastifyReply {
  // Encoded once here: sent as a string, the ~60 KB of a full page were measured for
  // content-length and then encoded again.
  const body = `{${JSON.stringify(key)}:[${page.items}],"next_page":${JSON.stringify(page.nextPage)}}`;
  return reply.header('content-type', JSON_TYPE).send(Buffer.from(body, 'utf8'));
}
