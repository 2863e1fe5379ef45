/**
 * Answers the page asked for before the console's code arrived. fleet.html starts the fleet
 * view's first GETs from an inline script while the code downloads (vite-plugins/
 * early-requests.ts), so on a slow link the rows are there when the code has run instead of one
 * more round trip later. The SDK's transport takes each such answer once, for the same URL asked
 * with the same key; anything else, or an early request that failed, goes to the network.
 */
import type { FetchLike } from '@canopy/sdk/browser';

/** What the inline script leaves: URL -> the Authorization it sent and the pending answer. */
export type EarlyResponses = Record<string, { authorization: string; response: Promise<Response> }>;

declare global {
  interface Window {
    canopyEarlyResponses?: EarlyResponses;
  }
}

const network: FetchLike = (input, init) => globalThis.fetch(input, init);

/** The SDK's transport: an early answer for this GET when there is one, else the network. */
export const earlyOrNetwork: FetchLike = (input, init) => {
  const early = window.canopyEarlyResponses;
  if (!early) return network(input, init);
  const request = input instanceof Request ? input : null;
  const url = new URL(request ? request.url : input.toString(), window.location.href).href;
  const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
  const authorization = new Headers(init?.headers ?? request?.headers).get('authorization');
  const answer = early[url];
  if (method !== 'GET' || !answer || answer.authorization !== authorization) return network(input, init);
  delete early[url];
  return answer.response.catch(() => network(input, init));
};
