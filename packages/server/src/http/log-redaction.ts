/**
 * What request logs show of a URL: everything but the credentials some URLs carry. A web console
 * shell's one-time URL (`/web-console/shells/<token>`) and a signed URL's `signature` are as good
 * as a key while they are valid, and logs are read by more people than keys are.
 */
import type { FastifyRequest } from 'fastify';

const CREDENTIAL_PATHS = [/^(\/web-console\/shells\/)[^/?#]+/];
const CREDENTIAL_QUERY_PARAMETERS = /([?&](?:signature|token|key|secret)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  let redacted = url;
  for (const pattern of CREDENTIAL_PATHS) redacted = redacted.replace(pattern, '$1[redacted]');
  return redacted.replace(CREDENTIAL_QUERY_PARAMETERS, '$1[redacted]');
}

/** Fastify's request serializer (method, url, host, remote address and port), the url redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
