/**
 * The request headers a `device.connected` event records (spec 2, section 7): the position
 * headers and the deprecated `x-canopy-*` ones older device software still sends.
 */
import type { IncomingHttpHeaders } from 'node:http';

export const MONITORED_HEADERS = [
  'canopy-release-prn',
  'canopy-release-version',
  'canopy-bundle-prn',
  'x-canopy-architecture',
  'x-canopy-platform',
  'x-canopy-product',
  'x-canopy-uuid',
  'x-canopy-version',
] as const;

// Events are stored and delivered by webhook; a hostile header must not bloat them.
const MAX_VALUE_LENGTH = 256;

/** The monitored headers present on the request, each value cut to a sane length. */
export function monitoredHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of MONITORED_HEADERS) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    if (value !== undefined) found[name] = value.slice(0, MAX_VALUE_LENGTH);
  }
  return found;
}
