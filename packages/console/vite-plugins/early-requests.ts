/**
 * The inline script fleet.html runs before the console's code has arrived: when a session is in
 * sessionStorage and the URL is the fleet's first, unfiltered page, it starts the GETs the fleet
 * view draws from and leaves them in window.canopyEarlyResponses, where the SDK's transport takes
 * them (src/api/early-responses.ts). On a slow link the answers then arrive while the code
 * downloads instead of a round trip after it has run. A URL here that the console no longer asks
 * for only costs that request (test/browser/first-load.test.ts checks each one is taken).
 *
 * The admin server allows fleet.html's inline scripts, this one and the frame's
 * (fleet-frame.ts), by their hashes (packages/server/src/console-app/inline-script-policy.ts).
 */
import { SESSION_STORAGE_KEY } from '../src/api/session';

/** The fleet view's first requests, as the SDK writes them (features/fleet/prefetch.ts). */
export const EARLY_FLEET_PATHS = ['/devices?limit=100&order=desc', '/devices/counts', '/products?order=asc&limit=100', '/cohorts?order=asc&limit=100'];

export function earlyRequestsScript(): string {
  return `(() => {
  try {
    if (location.search) return;
    const session = JSON.parse(sessionStorage.getItem(${JSON.stringify(SESSION_STORAGE_KEY)}) || 'null');
    if (!session || !session.apiKey) return;
    const authorization = 'Bearer ' + session.apiKey;
    const early = (window.canopyEarlyResponses = {});
    for (const path of ${JSON.stringify(EARLY_FLEET_PATHS)}) {
      const url = location.origin + path;
      const response = fetch(url, { headers: { authorization } });
      response.catch(() => {});
      early[url] = { authorization, response };
    }
  } catch {}
})();`;
}
