/**
 * Every path parameter of every route, one at a time, holding control characters (CR/LF, other
 * C0, DEL, NUL) and characters no header can carry, asked for as a browser (Accept: text/html)
 * and as an API client. Built from the server's own OpenAPI document, so a new route is covered
 * without touching this file.
 */
import { operationsOf } from './fuzz/operations';

/** Percent-encoded, as they arrive in a path. */
export const HOSTILE_SEGMENTS = ['%0d%0aX-Injected:%201', 'a%0ab', 'a%0db', '%01', 'a%09b', '%1b%5b31m', '%7f', 'a%00b', '%c4%80', '%e2%80%a8'];

export interface SweepRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export function controlCharacterRequests(openApiDocument: unknown): SweepRequest[] {
  const requests: SweepRequest[] = [];
  for (const operation of operationsOf(openApiDocument)) {
    const names = operation.parameters.filter((p) => p.in === 'path').map((p) => p.name);
    for (const hostile of names) {
      for (const segment of HOSTILE_SEGMENTS) {
        const path = operation.path.replace(/\{([^}]+)\}/g, (_, name) => (name === hostile ? segment : 'x'));
        for (const accept of ['text/html,application/xhtml+xml,*/*;q=0.8', 'application/json']) {
          const json = ['POST', 'PUT', 'PATCH'].includes(operation.method);
          requests.push({ method: operation.method, path, headers: { accept, ...(json ? { 'content-type': 'application/json' } : {}) }, body: json ? '{}' : undefined });
        }
      }
    }
  }
  return requests;
}

/** Sends them, a few at a time, and answers each with what came back. */
export async function sendAll(baseUrl: string, requests: SweepRequest[], headers: Record<string, string>) {
  const answers: { request: SweepRequest; status: number; contentType: string; text: string }[] = [];
  for (let i = 0; i < requests.length; i += 8) {
    await Promise.all(
      requests.slice(i, i + 8).map(async (request) => {
        const res = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers: { ...request.headers, ...headers }, body: request.body, redirect: 'manual' });
        answers.push({ request, status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() });
      }),
    );
  }
  return answers;
}
