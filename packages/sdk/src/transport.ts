/**
 * The fetch the client uses. With a CA path, requests go through undici with that CA trusted
 * (Node's global fetch cannot take a CA); otherwise the global fetch is used as is.
 */
import fs from 'node:fs';
import { Agent, fetch as undiciFetch } from 'undici';

import type { FetchLike } from './fetch-like';

export type { FetchLike };

export function createFetch(caPath?: string): FetchLike {
  if (!caPath) return (input, init) => globalThis.fetch(input, init);
  const ca = fs.readFileSync(caPath);
  const dispatcher = new Agent({ connect: { ca } });
  return (input, init) => {
    if (input instanceof Request) {
      // openapi-fetch hands over a Request; undici's fetch wants its own Request class.
      return undiciFetch(input.url, {
        method: input.method,
        headers: [...input.headers.entries()],
        body: input.body ? (input.body as never) : undefined,
        duplex: 'half',
        signal: input.signal,
        dispatcher,
      } as never) as unknown as Promise<Response>;
    }
    return undiciFetch(input, { ...(init as object), dispatcher } as never) as unknown as Promise<Response>;
  };
}
