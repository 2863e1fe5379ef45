/**
 * The one way the console talks to Canopy: the SDK's browser client, on the page's own origin
 * (the admin server serves the console at /console/, so the API is same-origin). Its transport
 * first looks for an answer the page asked for before the code arrived (early-responses.ts).
 */
import { createCanopyClient, type CanopyClient } from '@canopy/sdk/browser';
import { earlyOrNetwork } from './early-responses';

// No window when the build renders the fleet frame in Node (src/prerender/fleet-frame.tsx): that
// render asks for nothing, so any origin does.
export const apiBaseUrl = () => (typeof window === 'undefined' ? 'http://localhost' : window.location.origin);

export function clientFor(apiKey: string | null): CanopyClient {
  return createCanopyClient({ baseUrl: apiBaseUrl(), fetch: earlyOrNetwork, ...(apiKey ? { apiKey } : {}) });
}
