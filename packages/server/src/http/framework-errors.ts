/**
 * Answers Fastify and Node's HTTP parser make before any route runs, in the contract's error
 * shape like every other answer: a path parameter over the router's length limit (414), a path
 * that is not valid percent-encoding (400), and requests the HTTP parser refuses outright (a
 * request line or headers over Node's 16 KB limit: 431; anything unparseable: 400). Without
 * these, both servers would answer those with Fastify's or Node's own bodies.
 */
import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/** The router's limit on one path parameter (Fastify's default, stated so the 414 can say it). */
export const MAX_PATH_PARAMETER_LENGTH = 100;

function errorBody(code: string, context: Record<string, unknown>): { errors: { code: string; context: Record<string, unknown> }[] } {
  return { errors: [{ code, context }] };
}

/** Fastify's `frameworkErrors`: errors raised while routing, before a request has a route. */
export const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
  reply.header('x-request-id', request.id);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return reply.code(414).send(errorBody('parameter', { parameter: 'path', reason: 'too_long', max: MAX_PATH_PARAMETER_LENGTH }));
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return reply.code(400).send(errorBody('parameter', { parameter: 'path', reason: 'invalid_percent_encoding' }));
  }
  return reply.code(400).send(errorBody('bad_request', { reason: 'unroutable' }));
};

/** What the HTTP parser's error codes mean to a client. */
function clientErrorAnswer(error: NodeJS.ErrnoException): { status: number; code: string; reason: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'headers_too_large', reason: 'request_line_and_headers_over_16kb' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', reason: 'request_not_received_in_time' };
    case 'HPE_INVALID_METHOD':
      return { status: 400, code: 'malformed_request', reason: 'invalid_method' };
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_CONSTANT':
      return { status: 400, code: 'malformed_request', reason: 'invalid_header' };
    default:
      return { status: 400, code: 'malformed_request', reason: 'unparseable_request' };
  }
}

/** How long a refused client may go on sending before its connection is closed anyway. */
export const LINGER_AFTER_REFUSAL_MS = 2_000;

const discard = () => {};

/** Fastify's `clientErrorHandler`: the raw socket, since there is no request to answer through. */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  // Already answered: the parser keeps failing on what the client still sends while we linger.
  if (!socket.writable) return;
  const { status, code, reason } = clientErrorAnswer(error);
  const body = JSON.stringify(errorBody(code, { reason }));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // A lingering close: closing with the client's bytes unread resets the connection, and a reset
  // makes the client drop the answer it has not read yet. So read and discard until the client
  // closes too, or for LINGER_AFTER_REFUSAL_MS at most.
  socket.on('data', discard);
  socket.resume();
  const closeAnyway = setTimeout(() => socket.destroy(), LINGER_AFTER_REFUSAL_MS);
  closeAnyway.unref();
  socket.once('close', () => clearTimeout(closeAnyway));
}
