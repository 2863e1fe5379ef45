/**
 * The one way the console talks to Canopy: the SDK's browser client, on the page's own origin
 * (the admin server serves the console at /console/, so the API is same-origin).
 */
import { createCanopyClient, type CanopyClient } from '@canopy/sdk/browser';

export const apiBaseUrl = () => window.location.origin;

export function clientFor(apiKey: string | null): CanopyClient {
  return createCanopyClient({ baseUrl: apiBaseUrl(), ...(apiKey ? { apiKey } : {}) });
}
