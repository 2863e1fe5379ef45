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
  return reply.header('content-type', JSON_TYPE).send(`{${JSON.stringify(key)}:[${page.items}],"next_page":${JSON.stringify(page.nextPage)}}`);
}
