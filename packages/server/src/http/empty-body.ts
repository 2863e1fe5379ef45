/**
 * For actions whose body is optional (`POST /webhooks/{prn}/roll_secret`): the public API's
 * clients send no body, or an empty one with `content-type: application/json`, which Fastify's
 * JSON parser refuses as `empty_json_body` and the schema as `expected_json_object`. Spread
 * `...optionalBody` into a route's options: an empty request's content type is dropped before
 * parsing, and an absent body validates as `{}`, so the route's defaults apply. A body that is
 * there is parsed and validated as usual.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

async function dropEmptyContentType(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const length = request.headers['content-length'];
  const chunked = request.headers['transfer-encoding'] !== undefined;
  if (!chunked && (length === undefined || length === '0')) delete request.headers['content-type'];
}

async function absentAsEmptyObject(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

export const optionalBody = { onRequest: dropEmptyContentType, preValidation: absentAsEmptyObject };
