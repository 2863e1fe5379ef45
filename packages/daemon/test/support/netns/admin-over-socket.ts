/** An admin API client (the server test support's `Api` shape) over the Unix socket relay.ts opens. */
import http from 'node:http';
import { readJsonBody } from '../../../../server/test/support/json-body.ts';
import type { Api, ApiResponse } from '../../../../server/test/support/server.ts';

export function adminApiOverSocket(socketPath: string, key: string): Api {
  return (method, path, body, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const bearer = options.key === undefined ? key : options.key;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    const payload = body === undefined ? options.raw : JSON.stringify(body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
    return new Promise<ApiResponse<never>>((resolve, reject) => {
      const request = http.request({ socketPath, path, method, headers }, (response) => {
        readJsonBody(response).then((parsed) => resolve({ status: response.statusCode ?? 0, body: parsed as never, headers: new Headers() }), reject);
      });
      request.on('error', reject);
      request.end(payload);
    });
  };
}
