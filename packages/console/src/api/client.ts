/**
 * The one way the console talks to Canopy: the SDK's browser client, on the page's own origin
 * (the admin server serves the console at /console/, so the API is same-origin). Its transport
 * first looks for an answer the page asked for before the code arrived (early-responses.ts).
 */
import { createCanopyClient, type CanopyClient } from '@canopy/sdk/browser';
import { earlyOrNetwork } from './early-responses';

export const apiBaseUrl = () => window.location.origin;

export function clientFor(apiKey: string | null): CanopyClient {
  return createCanopyClient({ baseUrl: apiBaseUrl(), fetch: earlyOrNetwork, ...(apiKey ? { apiKey } : {}) });
}
