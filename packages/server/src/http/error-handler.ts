/**
 * Turns every failure into the contract's error body. Fastify's own errors (bad JSON, wrong
 * content type, body too large, schema validation) get stable codes; an unexpected error is
 * logged with its stack and answered as a bare 500, so nothing internal reaches a client.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { validateHeaderValue } from 'node:http';
import { sqlState } from '../db/errors';
import { ApiError } from './errors';
import { validationFailure } from './validation';

const FASTIFY_CODES: Record<string, { status: number; code: string; reason?: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'malformed_body', reason: 'content_length_mismatch' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'body_too_large' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'malformed_body', reason: 'empty_json_body' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'malformed_body', reason: 'invalid_json' },
};

/** PostgreSQL's own refusals, as a safety net under the services' explicit checks. */
function fromDatabase(error: unknown): ApiError | null {
  const code = sqlState(error);
  // A row still referenced elsewhere (a delete that a service did not guard): a conflict, not a crash.
  if (code === '23503') return new ApiError(409, [{ code: 'resource_in_use', context: {} }]);
  if (code === '23505') return new ApiError(409, [{ code: 'already_exists', context: {} }]);
  return null;
}

export function toApiError(error: FastifyError & { validation?: unknown; validationContext?: string }): ApiError | null {
  if (error instanceof ApiError) return error;
  const database = fromDatabase(error);
  if (database) return database;
  if (Array.isArray(error.validation)) return validationFailure(error.validationContext, error.validation as never);
  const known = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (known) return new ApiError(known.status, [{ code: known.code, context: known.reason ? { reason: known.reason } : {} }]);
  // JSON syntax errors from the body parser carry a 400 status but no FST code.
  if (error instanceof SyntaxError || (error.statusCode === 400 && !error.code)) {
    return new ApiError(400, [{ code: 'malformed_body', context: { reason: 'invalid_json' } }]);
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError(error.statusCode, [{ code: 'bad_request', context: {} }]);
  }
  return null;
}

/** What Node throws when the head is written with a header value it cannot send (CR/LF, non-Latin-1). */
const UNWRITABLE_HEADER = new Set(['ERR_INVALID_CHAR', 'ERR_HTTP_INVALID_HEADER_VALUE']);

/**
 * Removes the headers Node would refuse to write, and says whether there were any. Left in place,
 * the error answer would fail the same way and Fastify would answer in its own shape.
 */
function dropUnwritableHeaders(reply: FastifyReply): boolean {
  let dropped = false;
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    try {
      for (const each of [value].flat()) validateHeaderValue(name, String(each));
    } catch {
      reply.removeHeader(name);
      dropped = true;
    }
  }
  return dropped;
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // A header built from the request's own input (a path parameter in a Location): its fault.
    if (error.code && UNWRITABLE_HEADER.has(error.code) && dropUnwritableHeaders(reply)) {
      return reply.code(400).send({ errors: [{ code: 'bad_request', context: { reason: 'unrepresentable_in_header' } }] });
    }
    const apiError = toApiError(error);
    if (apiError) {
      if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
      return reply.code(apiError.status).send(apiError.toBody());
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.code(500).send({ errors: [{ code: 'internal_error', context: { request_id: request.id } }] });
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ errors: [{ code: 'not_found', context: { route: `${request.method} ${request.url.split('?')[0]}` } }] });
  });
}
